package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.RealServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a batch of cold decisions costs redis-server inside token_bucket.lua, in commands: each
 * command a script runs costs about as much again in the glue between Lua and Redis, so a
 * tenant too quiet for a lease should cost as few as its bucket needs.
 */
@ExtendWith(RealServers.class)
class TokenBucketCommandsIT {
  private static StoreOnRedis on;

  @BeforeAll
  static void connect(RedisServerProcess server) {
    on = StoreOnRedis.open(server);
  }

  @AfterAll
  static void disconnect() {
    on.close();
  }

  @Test
  void shouldReadEveryMarkerOfABatchAtOnceAndEachNewBucketWithThreeCommands() throws Exception {
    String run = "cold-" + System.nanoTime();
    List<TokenBucketStore.BucketCall> batch = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      batch.add(new TokenBucketStore.BucketCall(new BucketKey("cold-api", run + "-" + i),
          new BucketSpec(10, 5, 0), AcquireRequest.single(1)));
    }
    String[] commands = {"get", "mget", "hmget", "hset", "pexpire"};
    long[] before = new long[commands.length];
    for (int c = 0; c < commands.length; c++) {
      before[c] = on.commandCalls(commands[c]);
    }

    List<Acquisition> got = on.store().acquireBatch(batch).toCompletableFuture().get(5, TimeUnit.SECONDS);

    got.forEach(a -> assertEquals(1, a.granted()));
    long[] ran = new long[commands.length];
    for (int c = 0; c < commands.length; c++) {
      ran[c] = on.commandCalls(commands[c]) - before[c];
    }
    // The 32 buckets' markers (32 slots) in one MGET, none one by one; then per bucket a read,
    // a write and its TTL.
    assertEquals(List.of(0L, 1L, 32L, 32L, 32L), java.util.Arrays.stream(ran).boxed().toList(),
        "get, mget, hmget, hset, pexpire");
  }
}
