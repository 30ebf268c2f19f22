package io.sluice.testkit;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.sluice.embedded.RedisClusterProcess;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * A 3-node Redis Cluster for the tests of one class, started when the first of them asks
 * ({@link #get}, or any method that needs it) and stopped by the class's {@code @AfterAll} ({@link #close}), with plain commands
 * to it ({@link #redis}) to look at or move what a script keeps. What a test opens on it (the
 * product's own connection) it hands to {@link #closing}, to be closed before the cluster stops.
 */
public final class ClusterOnRedis implements AutoCloseable {
  private RedisClusterProcess process;
  private RedisClusterClient client;
  private StatefulRedisClusterConnection<String, String> connection;
  private final Deque<AutoCloseable> opened = new ArrayDeque<>();
  private final Map<Class<?>, Object> made = new HashMap<>();

  /** Makes something on a cluster: a store or a leak on the product's own connection to it. */
  @FunctionalInterface
  public interface Maker<T> {
    T make(ClusterOnRedis cluster) throws Exception;
  }

  /** The running cluster: started at the first call. */
  public synchronized ClusterOnRedis get() {
    if (process == null) {
      process = RedisClusterProcess.start(RedisClusterProcess.DEFAULT_MASTERS);
      client = RedisClusterClient.create(RedisURI.create("127.0.0.1", process.ports().get(0)));
      connection = client.connect(StringCodec.UTF8);
    }
    return this;
  }

  /** The cluster's URI, as the product's configuration names it. */
  public String uri() {
    return get().process.uri();
  }

  /** Plain commands, routed to the node of each key. */
  public RedisAdvancedClusterCommands<String, String> redis() {
    return get().connection.sync();
  }

  /**
   * The one {@code type} on this cluster: made by {@code maker} at the first call, the same after
   * (so a count it keeps, of script reloads say, is the whole class's), until this closes.
   */
  public synchronized <T> T once(Class<T> type, Maker<T> maker) throws Exception {
    Object existing = made.get(type);
    if (existing == null) {
      existing = maker.make(get());
      made.put(type, existing);
    }
    return type.cast(existing);
  }

  /** Closes {@code resource} when this closes, before the cluster stops (the last opened first). */
  public synchronized <T extends AutoCloseable> T closing(T resource) {
    opened.push(resource);
    return resource;
  }

  @Override
  public synchronized void close() throws Exception {
    if (process == null) {
      return;
    }
    try {
      connection.close();
      client.shutdown();
      while (!opened.isEmpty()) {
        opened.pop().close();
      }
    } finally {
      made.clear();
      process.close();
      process = null;
    }
  }
}
