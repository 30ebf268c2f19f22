package io.sluice.redis;

import io.lettuce.core.RedisCommandExecutionException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A circuit breaker in front of Redis, so that a Redis outage costs one timeout per probe instead
 * of one per event. Closed: calls go through. The first failure opens it: calls are refused (the
 * provider's onRedisDown policy decides) until the backoff has passed; then one call goes through
 * as a probe (half-open). A successful probe closes it; a failed one reopens it with the backoff
 * doubled, up to {@code maxBackoffMillis}.
 *
 * <p>The protocol cannot be left hanging. A call goes through only with a {@link Permit}, and
 * {@link #call} reports every permit it hands out when the call's stage completes, so a caller
 * that uses it cannot forget. A caller that holds a permit itself (the gate, which waits for its
 * answer on the stream thread) reports it once, {@link Permit#succeeded()} or
 * {@link Permit#failed}; and whatever a caller does, a probe not reported within
 * {@code probeTimeoutMillis} counts as failed. So the circuit never stays half-open longer than
 * that. (Before this, a caller could take the probe and never report back: one Redis blip left the
 * circuit half-open for ever, refusing every call.)
 *
 * <p>Reports are judged against the generation they were issued in: a call let through before the
 * circuit last changed state says nothing about Redis now (its success is not a probe, its failure
 * is already known), so its report is ignored.
 *
 * <p>Each transition is logged once here, under the circuit's name, and reported to a listener
 * (metrics); never a line per event. Thread-safe: one circuit is shared by every thread of a role.
 */
public final class RedisCircuit {
  private static final Logger LOG = LoggerFactory.getLogger(RedisCircuit.class);

  /** Longer than the Redis client's own command timeout (2 s), so a probe times out only when lost. */
  public static final long DEFAULT_PROBE_TIMEOUT_MILLIS = 5_000;

  public enum State { CLOSED, OPEN, HALF_OPEN }

  /**
   * The circuit as {@code /health} shows it.
   *
   * @param sinceMillis       when it entered this state
   * @param nextProbeAtMillis open: when the next probe may go; otherwise 0
   * @param lastFailure       the last failure that opened or reopened it, or "" if none yet
   */
  public record Status(String name, State state, long sinceMillis, long nextProbeAtMillis,
      String lastFailure) {}

  /** Thrown (in a failed stage) by {@link #call} when the circuit refuses the call. */
  public static final class OpenException extends IllegalStateException {
    public OpenException(String name) {
      super(name + ": Redis circuit open after a failure");
    }
  }

  /**
   * One call the circuit let through. Report how it went, once: the first report counts, later
   * ones are ignored.
   */
  public final class Permit {
    private final long generation;
    private final boolean probe;
    private boolean reported;

    private Permit(long generation, boolean probe) {
      this.generation = generation;
      this.probe = probe;
    }

    /** Redis answered. A probe's success closes the circuit. */
    public void succeeded() {
      synchronized (RedisCircuit.this) {
        if (!firstReport() || generation != RedisCircuit.this.generation) {
          return;
        }
        if (probe && state == State.HALF_OPEN) {
          LOG.warn("{}: Redis answers again after {} ms; limits are enforced in Redis", name,
              clock.getAsLong() - openedAtMillis);
          backoffMillis = initialBackoffMillis;
          move(State.CLOSED);
        }
      }
    }

    /**
     * The call failed. Redis failed or did not answer in time: the circuit opens. Redis answered
     * with an error of the call's own (a script error, a wrong type: {@link #isOutage} false):
     * Redis is up, and this counts as an answer. One provider's or tenant's script failing must
     * not send every other one to its onRedisDown policy.
     */
    public void failed(Throwable cause) {
      if (!isOutage(cause)) {
        succeeded();
        return;
      }
      synchronized (RedisCircuit.this) {
        if (!firstReport() || generation != RedisCircuit.this.generation) {
          return;
        }
        open(describe(cause));
      }
    }

    /** Whether this permit is the half-open probe. */
    public boolean isProbe() {
      return probe;
    }

    private boolean firstReport() {
      boolean first = !reported;
      reported = true;
      return first;
    }
  }

  private final String name;
  private final long initialBackoffMillis;
  private final long maxBackoffMillis;
  private final long probeTimeoutMillis;
  private final LongSupplier clock;
  private final Consumer<State> onTransition;
  private State state = State.CLOSED;
  /** Bumped on every transition; a permit's report counts only in the generation it was issued. */
  private long generation;
  private long sinceMillis;
  private long openedAtMillis;
  private long retryAtMillis;
  private long probeDeadlineMillis;
  private long backoffMillis;
  private String lastFailure = "";

  /**
   * @param name               which role's circuit, for logs and {@code /health} ("gate", "dispatcher")
   * @param probeTimeoutMillis a probe not reported within this counts as failed
   * @param clockMillis        wall clock in milliseconds
   * @param onTransition       told of every transition (metrics); logging is done here
   */
  public RedisCircuit(String name, long initialBackoffMillis, long maxBackoffMillis,
      long probeTimeoutMillis, LongSupplier clockMillis, Consumer<State> onTransition) {
    if (initialBackoffMillis <= 0 || maxBackoffMillis < initialBackoffMillis || probeTimeoutMillis <= 0) {
      throw new IllegalArgumentException("backoffs and probe timeout must be positive, initial <= max");
    }
    this.name = name;
    this.initialBackoffMillis = initialBackoffMillis;
    this.maxBackoffMillis = maxBackoffMillis;
    this.probeTimeoutMillis = probeTimeoutMillis;
    this.clock = clockMillis;
    this.onTransition = onTransition;
    this.backoffMillis = initialBackoffMillis;
    this.sinceMillis = clockMillis.getAsLong();
  }

  /** A circuit on the wall clock with the default probe timeout. */
  public RedisCircuit(long initialBackoffMillis, long maxBackoffMillis, Consumer<State> onTransition) {
    this("redis", initialBackoffMillis, maxBackoffMillis, DEFAULT_PROBE_TIMEOUT_MILLIS,
        System::currentTimeMillis, onTransition);
  }

  /**
   * A permit when a call may go to Redis now (closed, or this caller is the half-open probe);
   * empty when the circuit refuses. A permit must be reported (see {@link Permit}).
   */
  public synchronized Optional<Permit> tryAcquire() {
    long now = clock.getAsLong();
    expireLostProbe(now);
    switch (state) {
      case CLOSED:
        return Optional.of(new Permit(generation, false));
      case OPEN:
        if (now >= retryAtMillis) {
          LOG.debug("{}: probing Redis", name);
          move(State.HALF_OPEN);
          probeDeadlineMillis = now + probeTimeoutMillis;
          return Optional.of(new Permit(generation, true));
        }
        return Optional.empty();
      default:
        return Optional.empty();
    }
  }

  /**
   * Runs {@code redisCall} if the circuit lets it through and reports how its stage completes; a
   * refused call is a stage failed with {@link OpenException}. The safe way to call Redis.
   */
  public <T> CompletionStage<T> call(Supplier<? extends CompletionStage<T>> redisCall) {
    Optional<Permit> acquired = tryAcquire();
    if (acquired.isEmpty()) {
      return CompletableFuture.failedFuture(new OpenException(name));
    }
    Permit permit = acquired.get();
    CompletionStage<T> stage;
    try {
      stage = redisCall.get();
    } catch (RuntimeException e) {
      permit.failed(e);
      return CompletableFuture.failedFuture(e);
    }
    return stage.whenComplete((value, error) -> {
      if (error == null) {
        permit.succeeded();
      } else {
        permit.failed(error);
      }
    });
  }

  public synchronized State state() {
    expireLostProbe(clock.getAsLong());
    return state;
  }

  public synchronized Status status() {
    expireLostProbe(clock.getAsLong());
    return new Status(name, state, sinceMillis, state == State.OPEN ? retryAtMillis : 0, lastFailure);
  }

  /** A probe whose report never came counts as failed at its deadline. */
  private void expireLostProbe(long now) {
    if (state == State.HALF_OPEN && now >= probeDeadlineMillis) {
      open("probe not answered within " + probeTimeoutMillis + " ms");
    }
  }

  private void open(String cause) {
    long now = clock.getAsLong();
    lastFailure = cause;
    if (state == State.CLOSED) {
      backoffMillis = initialBackoffMillis;
      openedAtMillis = now;
      LOG.warn("{}: Redis failed ({}); each provider's onRedisDown policy applies until it answers"
          + " again (first probe in {} ms)", name, cause, backoffMillis);
    } else if (state == State.HALF_OPEN) {
      backoffMillis = Math.min(maxBackoffMillis, backoffMillis * 2);
      LOG.info("{}: Redis probe failed ({}); next probe in {} ms", name, cause, backoffMillis);
    } else {
      return; // already open: a late failure of a call let through in this generation
    }
    retryAtMillis = now + backoffMillis;
    move(State.OPEN);
  }

  private void move(State next) {
    state = next;
    generation++;
    sinceMillis = clock.getAsLong();
    onTransition.accept(next);
  }

  /**
   * Error replies by which Redis says it cannot serve now (loading, a script running too long, a
   * replica without its primary or read-only after a failover, a cluster down, out of memory,
   * a failed persistence, refused credentials): the whole of Redis is unavailable to this role.
   */
  private static final List<String> UNAVAILABLE_REPLIES = List.of(
      "LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS", "OOM",
      "MISCONF", "NOAUTH", "WRONGPASS", "NOPERM");

  /**
   * Whether {@code failure} says Redis is unavailable: anything but an error reply (a timeout,
   * a lost connection, a refused one), or an error reply that means Redis cannot serve
   * ({@link #UNAVAILABLE_REPLIES}). Any other error reply is Redis's answer to that one call.
   */
  public static boolean isOutage(Throwable failure) {
    Throwable t = AsyncFailure.cause(failure);
    if (!(t instanceof RedisCommandExecutionException)) {
      return true;
    }
    String reply = t.getMessage() == null ? "" : t.getMessage();
    return UNAVAILABLE_REPLIES.stream().anyMatch(code -> reply.startsWith(code));
  }

  private static String describe(Throwable cause) {
    if (cause == null) {
      return "failed";
    }
    Throwable t = AsyncFailure.cause(cause);
    return t.getMessage() == null ? t.getClass().getSimpleName()
        : t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
