package io.sluice.redis;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.config.RedisConfig;
import java.util.concurrent.CompletionStage;

/**
 * A role's access to Redis (the gate's, the dispatcher's, the health check's): one
 * {@link RedisConnection} (standalone, TLS or cluster, per {@code redis.uri}), the commands its
 * {@link LuaScript}s run on, and the {@link RedisCircuit} in front of them, named after the role.
 *
 * <p>Every role gets the same circuit: backoff from {@value #INITIAL_BACKOFF_MILLIS} ms to
 * {@value #MAX_BACKOFF_MILLIS} ms between probes, the default probe timeout, the wall clock. The
 * circuit logs its transitions itself, once each, so nothing here logs. One access per role rather
 * than one per process: each role's circuit and connection fail and recover on their own, and a
 * health check's PING never waits behind a role's pipelined scripts.
 */
public final class RedisAccess implements AutoCloseable {
  static final long INITIAL_BACKOFF_MILLIS = 250;
  static final long MAX_BACKOFF_MILLIS = 10_000;

  private final RedisConnection connection;
  private final RedisCircuit circuit;

  RedisAccess(RedisConnection connection, RedisCircuit circuit) {
    this.connection = connection;
    this.circuit = circuit;
  }

  /**
   * Connects for {@code role}, or throws {@link RedisConnection#open}'s {@link IllegalStateException}
   * saying what to start or fix.
   */
  public static RedisAccess open(RedisConfig config, String role) {
    return new RedisAccess(RedisConnection.open(config), circuit(role));
  }

  /** The circuit every role puts in front of Redis; {@code role} names it in logs and {@code /health}. */
  public static RedisCircuit circuit(String role) {
    return new RedisCircuit(role, INITIAL_BACKOFF_MILLIS, MAX_BACKOFF_MILLIS,
        RedisCircuit.DEFAULT_PROBE_TIMEOUT_MILLIS, System::currentTimeMillis, state -> {});
  }

  /** The commands scripts run on ({@link LuaScript#run}); thread-safe, shared by the role's threads. */
  public RedisScriptingAsyncCommands<String, String> commands() {
    return connection.commands();
  }

  /** The circuit in front of this role's calls to Redis, for the role's fallback and {@code /health}. */
  public RedisCircuit circuit() {
    return circuit;
  }

  /** One PING on this connection (standalone or cluster); for a reachability check. */
  public CompletionStage<String> ping() {
    return ((BaseRedisAsyncCommands<?, ?>) connection.commands()).ping();
  }

  @Override
  public void close() {
    connection.close();
  }
}
