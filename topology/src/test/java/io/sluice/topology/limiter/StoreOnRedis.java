package io.sluice.topology.limiter;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.sluice.embedded.RedisServerProcess;

/** The token-bucket store on one connection to a real redis-server, slots marked as a gate does. */
record StoreOnRedis(RedisClient client, StatefulRedisConnection<String, String> connection,
    LettuceTokenBucketStore store) implements AutoCloseable {

  static StoreOnRedis open(RedisServerProcess server) {
    RedisClient client = RedisClient.create(server.uri());
    StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
    LettuceTokenBucketStore store = new LettuceTokenBucketStore(connection.async(), TokenBucketScript.load());
    store.markSlotsIntact().toCompletableFuture().join();
    return new StoreOnRedis(client, connection, store);
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
