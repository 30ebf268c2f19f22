package io.sluice.gate.limiter;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.sluice.config.RedisConfig;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisConnection;
import io.sluice.testkit.ClusterOnRedis;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The token-bucket store on one connection to a real redis-server, slots marked as a gate does. */
record StoreOnRedis(RedisClient client, StatefulRedisConnection<String, String> connection,
    LettuceTokenBucketStore store) implements AutoCloseable {

  static StoreOnRedis open(RedisServerProcess server) {
    RedisClient client = RedisClient.create(server.uri());
    StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
    LettuceTokenBucketStore store = new LettuceTokenBucketStore(connection.async(), TokenBucketScript.load());
    store.markSlotsIntact().toCompletableFuture().join();
    warmUp(store);
    return new StoreOnRedis(client, connection, store);
  }

  /**
   * The store on {@code cluster} through the product's own connection (closed with the cluster),
   * its slots marked intact as a gate does.
   */
  static LettuceTokenBucketStore onCluster(ClusterOnRedis cluster) throws Exception {
    RedisConnection conn = cluster.closing(RedisConnection.open(new RedisConfig(cluster.uri())));
    LettuceTokenBucketStore store = new LettuceTokenBucketStore(conn.commands(), TokenBucketScript.load());
    store.markSlotsIntact().toCompletableFuture().get(30, TimeUnit.SECONDS);
    return store;
  }

  /**
   * Both scripts learned, the connection and the code paths used a few times, so that the first
   * table run on this store has its steps follow each other as quickly as the next (a cold start
   * on a loaded machine took over 100 ms between two steps: a unit of the table's bucket).
   */
  private static void warmUp(LettuceTokenBucketStore store) {
    BucketKey key = new BucketKey("warm-up", "warm-up");
    List<RuleBucket> rules = List.of(new RuleBucket("overall", RuleKeys.overall("warm-up"), new BucketSpec(5, 5, 0)));
    for (int i = 0; i < 20; i++) {
      store.acquire(key, new BucketSpec(5, 5, 1_000_000), AcquireRequest.single(1)).toCompletableFuture().join();
      store.acquireAll(rules, 1).toCompletableFuture().join();
    }
  }

  /** Plain commands, to look at or change what the script keeps. */
  RedisCommands<String, String> redis() {
    return connection.sync();
  }

  /** Times redis-server ran {@code command} (scripts' commands included), from INFO commandstats. */
  long commandCalls(String command) {
    for (String line : redis().info("commandstats").split("\\r?\\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
      }
    }
    return 0;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }
}
