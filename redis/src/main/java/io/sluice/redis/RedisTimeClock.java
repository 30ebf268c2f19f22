package io.sluice.redis;

import io.lettuce.core.ScriptOutputType;
import io.sluice.config.RedisConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis's clock as this process can be sure of it: a {@link Clock} reading a lower bound of Redis
 * {@code TIME} (see {@link RedisTimeSamples}), never ahead of it.
 *
 * <p>Why: the gate stamps not-befores on Redis's clock (the bucket's script reads {@code TIME}),
 * and a relay comparing them with its own clock releases paid events early by however much its
 * host is ahead. Judged on this clock, a record is never released before its not-before on Redis's
 * clock, whatever the local clock says.
 *
 * <p>A sample is taken before {@link #start} returns, then every {@code resampleEvery} on a daemon
 * thread of its own (the caller's thread never waits for Redis; reading the clock is a volatile
 * read and a few additions). While Redis does not answer, the last samples are kept, with a margin
 * for drift that grows with their age. If Redis does not answer at start, the clock reads the
 * local clock (logged once), for timers that need some time (a poll's wait, a retry), and switches
 * to Redis's as soon as a sample succeeds; {@link #onRedisTime} is false until then, and a caller
 * judging not-befores (the relay) judges none while it is: never early holds from the start.
 *
 * <p>Redis Cluster: {@code TIME} is read from one node; the bound holds against the clock of the
 * node that stamped a not-before as far as the nodes' clocks agree.
 */
public final class RedisTimeClock extends Clock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisTimeClock.class);
  /** Samples kept: the best of the last four (20 s at the default period) gives the bound. */
  static final int KEEP = 4;
  public static final Duration DEFAULT_RESAMPLE = Duration.ofSeconds(5);

  /** Reads Redis TIME in microseconds since the epoch; throws when Redis does not answer. */
  interface TimeSource extends AutoCloseable {
    long redisMicros() throws Exception;

    @Override
    default void close() {}
  }

  /** Opens a {@link TimeSource}; throws when Redis does not answer. */
  interface TimeSourceOpener {
    TimeSource open() throws Exception;
  }

  private final Clock local;
  private final TimeSourceOpener opener;
  private final ScheduledExecutorService sampler;
  private volatile RedisTimeSamples samples = RedisTimeSamples.none(KEEP);
  private TimeSource source; // sampler thread only (and start, before the sampler runs)
  private boolean failing;   // sampler thread only: logs an outage once, and its end once

  RedisTimeClock(Clock local, TimeSourceOpener opener) {
    this.local = local;
    this.opener = opener;
    this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-redis-clock");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Samples Redis TIME now (falling back to the local clock if Redis does not answer), then every
   * {@link #DEFAULT_RESAMPLE}. The local clock is a monotonic one anchored at the system clock: a
   * step of the host's clock cannot raise the bound.
   */
  public static RedisTimeClock start(RedisConfig config) {
    return start(config, MonotonicClock.anchoredNow(), DEFAULT_RESAMPLE);
  }

  /** As {@link #start(RedisConfig)}, on {@code local} (tests: a host clock off by some amount). */
  public static RedisTimeClock start(RedisConfig config, Clock local, Duration resampleEvery) {
    return start(local, () -> new RedisTimeSource(RedisConnection.open(config)), resampleEvery);
  }

  static RedisTimeClock start(Clock local, TimeSourceOpener opener, Duration resampleEvery) {
    RedisTimeClock clock = new RedisTimeClock(local, opener);
    clock.sample();
    long every = resampleEvery.toMillis();
    clock.sampler.scheduleWithFixedDelay(clock::sample, every, every, TimeUnit.MILLISECONDS);
    return clock;
  }

  /** True once a sample of Redis TIME succeeded: the clock reads Redis's, not the local one. */
  public boolean onRedisTime() {
    return !samples.isEmpty();
  }

  @Override
  public long millis() {
    RedisTimeSamples now = samples;
    long localMillis = local.millis();
    return now.isEmpty() ? localMillis : now.lowerBoundMillis(localMillis);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    if (!ZoneOffset.UTC.equals(zone)) {
      throw new UnsupportedOperationException("Redis's clock is kept in UTC");
    }
    return this;
  }

  /** Takes one sample; on failure keeps the samples it has (and reconnects next time). */
  void sample() {
    try {
      if (source == null) {
        source = opener.open();
      }
      long redisMicros = source.redisMicros();
      long received = local.millis();
      boolean first = samples.isEmpty();
      samples = samples.with(new RedisTimeSamples.Sample(redisMicros, received));
      if (first || failing) {
        LOG.info("Redis TIME answers: not-befores are judged on Redis's clock ({} ms from the local clock)",
            redisMicros / 1000 - received);
        failing = false;
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (!failing) {
        // Only the exception's type: RedisConnection's message carries the URI, password included.
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        if (samples.isEmpty()) {
          LOG.warn("Redis TIME does not answer ({}): no not-before is judged (nothing released) until it does",
              cause.getClass().getSimpleName());
        } else {
          LOG.warn("Redis TIME does not answer ({}); keeping the last samples of its clock",
              cause.getClass().getSimpleName());
        }
        failing = true;
      }
    }
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    try {
      sampler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (source != null) {
      try {
        source.close();
      } catch (Exception ignored) {
        // closing a connection that is going away anyway
      }
    }
  }

  /** Redis TIME through a Lua script: the connection exposes the scripting commands only. */
  private static final class RedisTimeSource implements TimeSource {
    private final RedisConnection connection;

    RedisTimeSource(RedisConnection connection) {
      this.connection = connection;
    }

    @Override
    public long redisMicros() throws Exception {
      List<Object> time = connection.commands()
          .<List<Object>>eval("return redis.call('TIME')", ScriptOutputType.MULTI)
          .get(2, TimeUnit.SECONDS);
      return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
    }

    @Override
    public void close() {
      connection.close();
    }
  }

  /**
   * The system clock at the anchor, advanced by the monotonic clock since: never steps, so a host
   * clock corrected forward cannot make an earlier sample's bound run ahead of Redis.
   */
  static final class MonotonicClock extends Clock {
    private final long anchorMillis;
    private final long anchorNanos;

    private MonotonicClock(long anchorMillis, long anchorNanos) {
      this.anchorMillis = anchorMillis;
      this.anchorNanos = anchorNanos;
    }

    static MonotonicClock anchoredNow() {
      return new MonotonicClock(System.currentTimeMillis(), System.nanoTime());
    }

    @Override
    public long millis() {
      return anchorMillis + (System.nanoTime() - anchorNanos) / 1_000_000;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
