package io.sluice.app.ops;

/**
 * One dependency an instance needs (Kafka, Redis), asked whether it answers. {@code /health}
 * calls every check on each request, so an implementation bounds its own time (a couple of
 * seconds at most) and caches briefly so frequent probes do not hammer the dependency.
 */
public interface HealthCheck {

  /** The key under which the result appears in {@code /health}, e.g. {@code kafka}. */
  String name();

  /** Asks now (or returns a recent answer). Must not throw: a failure is an unreachable result. */
  Result check();

  /**
   * @param reachable whether the dependency answered as expected
   * @param detail    what it said, or why it did not answer: for a person reading {@code /health}
   */
  record Result(boolean reachable, String detail) {
    public static Result reachable(String detail) {
      return new Result(true, detail);
    }

    public static Result unreachable(String detail) {
      return new Result(false, detail);
    }
  }
}
