package io.sluice.redis;

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
import io.sluice.config.RedisConfig;
import io.sluice.config.RedisUri;
import io.sluice.config.Secrets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One Lettuce connection (standalone {@code redis://}, {@code rediss://}, or cluster
 * {@code redis-cluster://h1:p1,...}, {@code rediss-cluster://}; each with optional
 * {@code user:password@}, see {@link RedisUri}) exposing the scripting commands the limiter needs.
 * Lettuce connections are thread-safe and pipeline concurrent commands, so one is shared by every
 * stream thread of an instance.
 *
 * <p>While Redis is unreachable, commands are rejected at once instead of queued: the gate's
 * circuit breaker and fallback policy decide, rather than a queue growing behind a dead socket.
 * Lettuce reconnects in the background, authenticating again with the same credentials.
 *
 * <p>The URI's password appears in no message: errors show the URI with its user info masked,
 * and are scrubbed of the password whatever Lettuce or Redis put in them.
 */
public final class RedisConnection implements AutoCloseable {
  /** Redis answered, and refused the user or password of {@code redis.uri}: starting again will not help. */
  public static final class CredentialsRefused extends IllegalStateException {
    CredentialsRefused(String message) {
      super(message);
    }
  }

  private final AutoCloseable connection;
  private final Runnable shutdown;
  private final RedisScriptingAsyncCommands<String, String> commands;

  private RedisConnection(AutoCloseable connection, Runnable shutdown, RedisScriptingAsyncCommands<String, String> commands) {
    this.connection = connection;
    this.shutdown = shutdown;
    this.commands = commands;
  }

  /**
   * Connects, or throws an {@link IllegalStateException} whose message says what to start or to
   * fix, naming {@code redis.uri} and never showing its password.
   */
  public static RedisConnection open(RedisConfig config) {
    RedisUri uri = config.parsed();
    List<RedisURI> nodes = lettuceUris(uri);
    RuntimeException failure = null;
    // A refused AUTH/HELLO sometimes reaches Lettuce after the server has closed the channel, and
    // then surfaces as "RedisHandshakeHandler not registered" instead of Redis's own WRONGPASS:
    // seen twice in full builds on a loaded machine (RedisAuthIT). One more attempt gets Redis's words, so
    // a wrong password is not reported as a server that does not answer.
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        return uri.cluster() ? openCluster(nodes) : openStandalone(nodes.get(0));
      } catch (RuntimeException e) {
        failure = e;
        if (!lostHandshake(e)) {
          break;
        }
      }
    }
    RuntimeException e = failure;
    List<String> secrets = new ArrayList<>();
    secrets.add(uri.password());
    String reason = Secrets.scrub(reason(e), secrets);
    if (refusedCredentials(e)) {
      throw new CredentialsRefused("Redis at " + uri + " refused the credentials in redis.uri"
          + " (" + reason + "). Check the user and password of redis.uri / SLUICE_REDIS__URI"
          + " (redis://user:password@host:port, or redis://:password@host:port for the default"
          + " user).");
    }
    throw new IllegalStateException(
        "Redis at " + uri + " does not answer (" + reason + "). Start it (for example"
            + " 'redis-server --port 6379', or 'sudo apt-get install -y redis-server' if it is not"
            + " installed) or point redis.uri / SLUICE_REDIS__URI at a running server.", null);
  }

  public RedisScriptingAsyncCommands<String, String> commands() {
    return commands;
  }

  /** One Lettuce URI per node, each with the credentials, TLS and database of {@code uri}. */
  static List<RedisURI> lettuceUris(RedisUri uri) {
    List<RedisURI> nodes = new ArrayList<>();
    for (RedisUri.Node node : uri.nodes()) {
      RedisURI.Builder b = RedisURI.builder().withHost(node.host()).withPort(node.port())
          .withSsl(uri.tls()).withDatabase(uri.database());
      if (uri.password() != null) {
        if (uri.user() != null) {
          b.withAuthentication(uri.user(), uri.password());
        } else {
          b.withPassword(uri.password().toCharArray());
        }
      }
      nodes.add(b.build());
    }
    return nodes;
  }

  /** Reconnect attempts back off to at most two seconds, so Redis is used again soon after it returns. */
  private static ClientResources resources() {
    return ClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS))
        .build();
  }

  private static RedisConnection openStandalone(RedisURI uri) {
    ClientResources resources = resources();
    RedisClient client = RedisClient.create(resources, uri);
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

  private static RedisConnection openCluster(List<RedisURI> seeds) {
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

  /**
   * Redis's answer to bad credentials: WRONGPASS (wrong user or password), NOAUTH (a password is
   * needed and none was given), or "ERR AUTH ... called without any password configured" (one was
   * given to a server that has none). A cluster client reports each seed's failure as suppressed.
   */
  /** Lettuce lost the connection during its handshake (the answer to AUTH/HELLO never reached it). */
  static boolean lostHandshake(Throwable e) {
    for (Throwable t : causes(e)) {
      if (t.getMessage() != null && t.getMessage().contains("RedisHandshakeHandler not registered")) {
        return true;
      }
    }
    return false;
  }

  private static boolean refusedCredentials(Throwable e) {
    for (Throwable t : causes(e)) {
      String m = t.getMessage() == null ? "" : t.getMessage().toUpperCase(Locale.ROOT);
      if (m.contains("WRONGPASS") || m.contains("NOAUTH") || m.contains("ERR AUTH")
          || m.contains("NOPERM")) {
        return true;
      }
    }
    return false;
  }

  /** The deepest messages of the failure, for the user: Redis's own words where there are any. */
  private static String reason(Throwable e) {
    List<String> messages = new ArrayList<>();
    for (Throwable t : causes(e)) {
      if (t.getCause() == null && t.getMessage() != null && !messages.contains(t.getMessage())) {
        messages.add(t.getMessage());
      }
    }
    return messages.isEmpty() ? String.valueOf(e.getMessage()) : String.join("; ", messages);
  }

  /** {@code e}, its causes and their suppressed exceptions, depth first, without cycles. */
  private static List<Throwable> causes(Throwable e) {
    List<Throwable> all = new ArrayList<>();
    collect(e, all);
    return all;
  }

  private static void collect(Throwable t, List<Throwable> all) {
    if (t == null || all.contains(t) || all.size() > 32) {
      return;
    }
    all.add(t);
    collect(t.getCause(), all);
    for (Throwable s : t.getSuppressed()) {
      collect(s, all);
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
