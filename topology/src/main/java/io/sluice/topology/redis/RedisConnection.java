package io.sluice.topology.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.util.concurrent.TimeUnit;
import io.sluice.schemas.config.RedisConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One Lettuce connection (standalone {@code redis://} or cluster {@code redis-cluster://h1:p1,...})
 * exposing the scripting commands the limiter needs. Lettuce connections are thread-safe and
 * pipeline concurrent commands, so one is shared by every stream thread of an instance.
 *
 * <p>While Redis is unreachable, commands are rejected at once instead of queued: the gate's
 * circuit breaker and fallback policy decide, rather than a queue growing behind a dead socket.
 * Lettuce reconnects in the background.
 */
public final class RedisConnection implements AutoCloseable {
  private final AutoCloseable connection;
  private final Runnable shutdown;
  private final RedisScriptingAsyncCommands<String, String> commands;

  private RedisConnection(AutoCloseable connection, Runnable shutdown, RedisScriptingAsyncCommands<String, String> commands) {
    this.connection = connection;
    this.shutdown = shutdown;
    this.commands = commands;
  }

  /**
   * Connects, or throws an {@link IllegalStateException} whose message says what to start.
   */
  public static RedisConnection open(RedisConfig config) {
    try {
      return config.isCluster() ? openCluster(config.uri()) : openStandalone(config.uri());
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Redis at " + config.uri() + " does not answer (" + e.getMessage() + "). Start it (for example"
              + " 'redis-server --port 6379', or 'sudo apt-get install -y redis-server' if it is not"
              + " installed) or point redis.uri / SLUICE_REDIS__URI at a running server.", e);
    }
  }

  public RedisScriptingAsyncCommands<String, String> commands() {
    return commands;
  }

  /** Reconnect attempts back off to at most two seconds, so Redis is used again soon after it returns. */
  private static ClientResources resources() {
    return ClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
        .build();
  }

  private static RedisConnection openStandalone(String uri) {
    ClientResources resources = resources();
    RedisClient client = RedisClient.create(resources, RedisURI.create(uri));
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
        .build());
    try {
      StatefulRedisConnection<String, String> c = client.connect(StringCodec.UTF8);
      return new RedisConnection(c, () -> shutdown(client::shutdown, resources), c.async());
    } catch (RuntimeException e) {
      shutdown(client::shutdown, resources);
      throw e;
    }
  }

  private static RedisConnection openCluster(String uri) {
    String hosts = uri.substring("redis-cluster://".length());
    List<RedisURI> seeds = new ArrayList<>();
    for (String hostPort : hosts.split(",")) {
      String[] hp = hostPort.trim().split(":");
      seeds.add(RedisURI.create(hp[0], Integer.parseInt(hp[1])));
    }
    ClientResources resources = resources();
    RedisClusterClient client = RedisClusterClient.create(resources, seeds);
    client.setOptions(ClusterClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2)))
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .enablePeriodicRefresh(Duration.ofSeconds(30))
            .build())
        .build());
    try {
      StatefulRedisClusterConnection<String, String> c = client.connect(StringCodec.UTF8);
      return new RedisConnection(c, () -> shutdown(client::shutdown, resources), c.async());
    } catch (RuntimeException e) {
      shutdown(client::shutdown, resources);
      throw e;
    }
  }

  private static void shutdown(Runnable client, ClientResources resources) {
    client.run();
    resources.shutdown();
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (Exception ignored) {
      // closing a dead connection: nothing more to release than the client below
    }
    shutdown.run();
  }
}
