package io.sluice.testkit;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.concurrent.locks.LockSupport;

/**
 * Waiting on a condition with a deadline: the one way the tests of every module synchronise
 * (never a sleep). The condition is evaluated on the calling thread, so it may use clients that
 * are not thread-safe (a Kafka consumer). A timeout fails with what was awaited and the last value
 * observed, so a failure says how far the wait got.
 */
public final class Await {
  /** Pause between two observations of a condition that answers at once. */
  static final Duration PAUSE = Duration.ofMillis(20);
  /** The longest text of an observed value a failure message carries. */
  static final int DESCRIBED_CHARS = 600;

  private Await() {}

  /** Waits until {@code condition} holds, failing after {@code within} with {@code what}. */
  public static void until(String what, Duration within, BooleanSupplier condition) {
    until(what, within, condition::getAsBoolean, Boolean::booleanValue);
  }

  /**
   * Observes a value every 20 ms until {@code done} accepts it, and returns it;
   * fails after {@code within} with {@code what} and the last value observed.
   */
  public static <T> T until(String what, Duration within, Supplier<T> observe, Predicate<? super T> done) {
    return await(what, within, PAUSE, observe, done, true);
  }

  /**
   * As {@link #until(String, Duration, Supplier, Predicate)} for an observation that blocks while
   * it reads (a consumer poll): observes again without a pause.
   */
  public static <T> T untilRead(String what, Duration within, Supplier<T> read, Predicate<? super T> done) {
    return await(what, within, Duration.ZERO, read, done, true);
  }

  /**
   * Observes until {@code done} accepts the value or {@code within} passes, and returns the last
   * value observed either way: for a caller whose own assertions on the value say more than a
   * timeout would.
   */
  public static <T> T atMost(Duration within, Supplier<T> observe, Predicate<? super T> done) {
    return await("", within, PAUSE, observe, done, false);
  }

  private static <T> T await(String what, Duration within, Duration pause, Supplier<T> observe,
      Predicate<? super T> done, boolean failOnTimeout) {
    long end = System.nanoTime() + within.toNanos();
    T value = observe.get();
    while (!done.test(value)) {
      if (System.nanoTime() - end > 0) {
        if (!failOnTimeout) {
          return value;
        }
        throw new AssertionError("timed out after " + within + " waiting for " + what
            + "; last observed: " + describe(value));
      }
      if (!pause.isZero()) {
        LockSupport.parkNanos(pause.toNanos());
      }
      value = observe.get();
    }
    return value;
  }

  /** The value as text, cut short; a collection or map leads with its size. */
  static String describe(Object value) {
    String text = String.valueOf(value);
    if (text.length() > DESCRIBED_CHARS) {
      text = text.substring(0, DESCRIBED_CHARS) + "…";
    }
    if (value instanceof Collection<?> c) {
      return c.size() + " items " + text;
    }
    if (value instanceof Map<?, ?> m) {
      return m.size() + " entries " + text;
    }
    return text;
  }
}
