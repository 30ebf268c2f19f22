package io.sluice.config;

import java.time.Duration;
import java.util.List;

/**
 * The value of every optional setting, applied by {@link ConfigLoader}. config.schema.json states
 * the same values as {@code default} annotations for users; {@code ConfigDefaultsTest} keeps the
 * two equal.
 */
public final class ConfigDefaults {
  public static final String KAFKA_BOOTSTRAP = "localhost:9092";
  public static final String TOPIC_PREFIX = "sluice.";
  public static final String REDIS_URI = "redis://localhost:6379";
  public static final List<Duration> LADDER = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
      Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(10));
  public static final int MAX_ATTEMPTS = 8;
  public static final Duration RESERVATION_HORIZON = Duration.ofSeconds(30);
  public static final double TIER_WEIGHT = 1;

  public static final int MAX_IN_FLIGHT = 16;
  public static final Duration TIMEOUT = Duration.ofSeconds(5);
  public static final RedisDownPolicy ON_REDIS_DOWN = RedisDownPolicy.LOCAL;
  public static final boolean SHADOW = false;
  public static final List<String> FORWARD_HEADERS = List.of();
  public static final int MAX_COST = 100;
  public static final String METHOD = "POST";
  public static final String CONTENT_TYPE = "application/json";
  /**
   * How much longer than its {@code per} a calls or cost window is kept. Sluice counts the times
   * calls start; the provider counts when they arrive, a network delay later. A window of starts
   * W + m long covers every window of arrivals W long as long as the delays of calls differ by at
   * most m (jitter, plus a slot fired late by the timer). 20 ms covers a LAN or a region with room
   * and costs 2 % of a per-second window's allowance, nothing measurable of a minute's.
   */
  public static final Duration LIMIT_MARGIN = Duration.ofMillis(20);
  /** Learn providers' limits from their answers ({@link AnswerBounds#learn}). */
  public static final boolean LEARN = true;
  /** Learned limits never below a tenth of the configured ones ({@link AnswerBounds}). */
  public static final double LEARNED_FLOOR = 0.1;
  /** The longest one answer holds a provider ({@link AnswerBounds#maxRetryAfter}). */
  public static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);
  /** Per-tenant endpoints may not be internal addresses ({@link ProviderEndpoints}). */
  public static final boolean ALLOW_PRIVATE_NETWORKS = false;
  /** An endpoint failing this long without a success is disabled ({@link ProviderEndpoints}). */
  public static final Duration DISABLE_AFTER = Duration.ofMinutes(5);
  /** A disabled endpoint is probed after this cool-off ({@link ProviderEndpoints}). */
  public static final Duration PROBE_AFTER = Duration.ofMinutes(1);
  /** A disabled endpoint's events wait ({@link ProviderEndpoints}). */
  public static final ProviderEndpoints.WhileDisabled WHILE_DISABLED =
      ProviderEndpoints.WhileDisabled.WAIT;

  public static final int HTTP_PORT = 8080;
  public static final String HTTP_BIND = "127.0.0.1";

  public static final String GATE_APPLICATION_ID = "sluice-gate";
  public static final int GATE_STREAM_THREADS = 1;
  public static final int GATE_MAX_PAYLOAD_BYTES = 262_144;
  public static final Duration GATE_LEASE_TARGET = Duration.ofSeconds(1);
  public static final int GATE_MAX_LEASE = 64;
  public static final Duration GATE_REDIS_TIMEOUT = Duration.ofMillis(500);
  public static final String DISPATCHER_GROUP_ID = "sluice-dispatcher";
  public static final int DISPATCHER_BUFFER_SIZE = 1000;
  public static final int DISPATCHER_BUFFER_BYTES = 64 << 20;
  public static final Duration DISPATCHER_LOOKAHEAD = Duration.ofMillis(100);
  public static final Duration DISPATCHER_BACKOFF_BASE = Duration.ofSeconds(1);
  public static final Duration DISPATCHER_BACKOFF_CAP = Duration.ofMinutes(5);
  public static final double DISPATCHER_MIN_RATE_FACTOR = 0.1;
  public static final Duration DISPATCHER_RECOVERY = Duration.ofSeconds(30);
  public static final Duration DISPATCHER_PRIORITY_AGING = Duration.ofSeconds(30);

  private ConfigDefaults() {}

  /** Spans held for export at most ({@code tracing.maxQueue}); the SDK's own default. */
  public static final int TRACING_MAX_QUEUE = 2048;
}
