package io.sluice.dispatcher.dispatch;

import io.sluice.embedded.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.dispatcher.dispatch.DeliveredLog.Delivered;
import io.sluice.embedded.RealServers;
import io.sluice.embedded.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The delivered log on a real redis-server: what a partition's next owner reads back. */
@ExtendWith(RealServers.class)
class RedisDeliveredLogIT {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private final String group = "g-" + UUID.randomUUID();
  private final TopicPartition ready2 = new TopicPartition("sluice.ready", 2);

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    client = RedisClient.create(shared.uri());
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    connection.close();
    client.shutdown();
  }

  private RedisDeliveredLog log() {
    return new RedisDeliveredLog(connection.async(), group);
  }

  private static Map<Long, Delivered> read(DeliveredLog log, TopicPartition tp, long from) throws Exception {
    return log.since(tp, from).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /** Waits for a condition on the log (its writes are not waited for), with a deadline. */
  private static <T> T await(Supplier<T> read, java.util.function.Predicate<T> done) {
    return Await.until("the delivered log to show the writes", Duration.ofSeconds(10), read, done);
  }

  private Map<Long, Delivered> readQuietly(DeliveredLog log, TopicPartition tp, long from) {
    try {
      return read(log, tp, from);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  @DisplayName("a new owner reads back every delivery at or beyond its commit, with status and attempts")
  void shouldReadBackWhatWasDeliveredBeyondTheCommit() throws Exception {
    DeliveredLog previous = log();
    previous.record(ready2, -1, List.of(new Delivered(10, 200, 1), new Delivered(12, 202, 3)));
    previous.record(ready2, -1, List.of(new Delivered(15, 200, 1)));

    DeliveredLog next = log(); // another instance, same group
    Map<Long, Delivered> seen = await(() -> readQuietly(next, ready2, 11), m -> m.size() == 2);
    assertEquals(Map.of(12L, new Delivered(12, 202, 3), 15L, new Delivered(15, 200, 1)), seen,
        "offset 10 is below the commit: never read again");
    assertEquals(Map.of(), read(next, new TopicPartition("sluice.ready", 3), 0), "another partition: its own log");
    assertEquals(Map.of(), read(new RedisDeliveredLog(connection.async(), group + "-other"), ready2, 0),
        "another group: its own log");
  }

  @Test
  @DisplayName("each write drops what its commit passed, so the log holds only the replay window, and it expires")
  void shouldDropWhatTheCommitPassed() throws Exception {
    DeliveredLog log = log();
    log.record(ready2, -1, List.of(new Delivered(1, 200, 1), new Delivered(2, 200, 1), new Delivered(7, 200, 1)));
    await(() -> readQuietly(log, ready2, 0), m -> m.size() == 3);
    log.record(ready2, 5, List.of(new Delivered(9, 200, 1)));
    Map<Long, Delivered> left = await(() -> readQuietly(log, ready2, 0), m -> m.containsKey(9L));
    assertEquals(List.of(7L, 9L), left.keySet().stream().sorted().toList(), "1 and 2 dropped");
    long ttl = connection.sync().pttl(RedisDeliveredLog.redisKey(group, ready2));
    assertTrue(ttl > 0 && ttl <= RedisDeliveredLog.TTL_MILLIS, "expires: " + ttl);
  }
}
