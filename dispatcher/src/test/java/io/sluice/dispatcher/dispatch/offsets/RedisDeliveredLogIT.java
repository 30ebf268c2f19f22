package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.dispatcher.dispatch.offsets.DeliveredLog.Delivered;
import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
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

  private static final TopicIdentity.Ids IDS = new TopicIdentity.Ids("cluster-a", "topic-1");

  private RedisDeliveredLog log() {
    return log(IDS);
  }

  /** A log whose partitions are of the topic incarnation {@code ids}. */
  private RedisDeliveredLog log(TopicIdentity.Ids ids) {
    return new RedisDeliveredLog(connection.async(), group, topic -> CompletableFuture.completedFuture(ids));
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
    read(previous, ready2, 0); // assigned
    previous.record(ready2, -1, List.of(new Delivered(10, 200, 1), new Delivered(12, 202, 3)));
    previous.record(ready2, -1, List.of(new Delivered(15, 200, 1)));

    DeliveredLog next = log(); // another instance, same group
    Map<Long, Delivered> seen = await(() -> readQuietly(next, ready2, 11), m -> m.size() == 2);
    assertEquals(Map.of(12L, new Delivered(12, 202, 3), 15L, new Delivered(15, 200, 1)), seen,
        "offset 10 is below the commit: never read again");
    assertEquals(Map.of(), read(next, new TopicPartition("sluice.ready", 3), 0), "another partition: its own log");
    assertEquals(Map.of(), read(new RedisDeliveredLog(connection.async(), group + "-other",
            topic -> CompletableFuture.completedFuture(IDS)), ready2, 0),
        "another group: its own log");
  }

  @Test
  @DisplayName("a new owner waiting for its previous owner's outcome reads the offsets it holds again, and sees them settled")
  void shouldReadARangeAgainUnderTheAssignmentsIds() throws Exception {
    DeliveredLog previous = log();
    read(previous, ready2, 0); // assigned
    previous.record(ready2, -1, List.of(new Delivered(4, 200, 1), new Delivered(6, 200, 1),
        new Delivered(9, 200, 1))).toCompletableFuture().get(5, TimeUnit.SECONDS);

    DeliveredLog next = log();
    assertEquals(Map.of(), next.between(ready2, 0, 100).toCompletableFuture().get(5, TimeUnit.SECONDS),
        "not assigned: its ids unknown, nothing read");
    read(next, ready2, 0); // assigned: finds 4, 6 and 9 delivered, not settled
    previous.record(ready2, -1, List.of(Delivered.settledAt(6))) // acknowledged late
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(Map.of(6L, Delivered.settledAt(6)),
        next.between(ready2, 5, 8).toCompletableFuture().get(5, TimeUnit.SECONDS),
        "only 5 to 8, and 6 settled (a settled mark says all)");
  }

  @Test
  @DisplayName("each write drops what its commit passed, so the log holds only the replay window, and it expires")
  void shouldDropWhatTheCommitPassed() throws Exception {
    DeliveredLog log = log();
    read(log, ready2, 0); // assigned
    log.record(ready2, -1, List.of(new Delivered(1, 200, 1), new Delivered(2, 200, 1), new Delivered(7, 200, 1)));
    await(() -> readQuietly(log, ready2, 0), m -> m.size() == 3);
    log.record(ready2, 5, List.of(new Delivered(9, 200, 1)));
    Map<Long, Delivered> left = await(() -> readQuietly(log, ready2, 0), m -> m.containsKey(9L));
    assertEquals(List.of(7L, 9L), left.keySet().stream().sorted().toList(), "1 and 2 dropped");
    long ttl = connection.sync().pttl(RedisDeliveredLog.redisKey(group, ready2, IDS));
    assertTrue(ttl > 0 && ttl <= RedisDeliveredLog.TTL_MILLIS, "expires: " + ttl);
  }

  @Test
  @DisplayName("another incarnation of the topic (created again, or another cluster's) has a log of its own")
  void shouldKeepEachIncarnationApart() throws Exception {
    DeliveredLog before = log();
    read(before, ready2, 0);
    before.record(ready2, -1, List.of(new Delivered(3, 200, 1))).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(Set.of(3L), read(log(), ready2, 0).keySet(), "the same incarnation reads it");
    assertEquals(Map.of(), read(log(new TopicIdentity.Ids("cluster-a", "topic-2")), ready2, 0),
        "the topic deleted and created again");
    assertEquals(Map.of(), read(log(new TopicIdentity.Ids("cluster-b", "topic-1")), ready2, 0),
        "another cluster");
  }

  @Test
  @DisplayName("a partition whose cluster and topic ids cannot be told is neither read nor written")
  void shouldNeitherReadNorWriteWithoutIds() throws Exception {
    DeliveredLog blind = new RedisDeliveredLog(connection.async(), group, TopicIdentity.UNKNOWN);
    assertThrows(ExecutionException.class, () -> read(blind, ready2, 0));
    blind.record(ready2, -1, List.of(new Delivered(3, 200, 1))).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(List.of(), connection.sync().keys("sluice:v2:{" + group + ":*"));
  }

  @Test
  @DisplayName("however long the commit is held back, a partition's log keeps at most MAX_ENTRIES, the highest offsets")
  void shouldKeepAtMostMaxEntries() throws Exception {
    DeliveredLog log = log();
    read(log, ready2, 0);
    int total = RedisDeliveredLog.MAX_ENTRIES + 10;
    for (int from = 0; from < total; from += 5_000) {
      List<Delivered> batch = new java.util.ArrayList<>();
      for (long offset = from; offset < Math.min(total, from + 5_000); offset++) {
        batch.add(new Delivered(offset, 200, 1));
      }
      log.record(ready2, 0, batch).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    Map<Long, Delivered> kept = read(log, ready2, 0);
    assertEquals(RedisDeliveredLog.MAX_ENTRIES, kept.size());
    assertEquals(10L, kept.keySet().stream().mapToLong(Long::longValue).min().orElseThrow(),
        "the ten lowest offsets dropped");
  }

  @Test
  @DisplayName("a record delivered and then settled reads as settled: its outcome is written already")
  void shouldReadSettledOverDelivered() throws Exception {
    DeliveredLog log = log();
    read(log, ready2, 0);
    log.record(ready2, -1, List.of(new Delivered(4, 200, 1), new Delivered(5, 200, 1))).toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    log.record(ready2, -1, List.of(Delivered.settledAt(4), Delivered.settledAt(6))).toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertEquals(Map.of(4L, Delivered.settledAt(4), 5L, new Delivered(5, 200, 1), 6L, Delivered.settledAt(6)),
        read(log, ready2, 0));
  }
}
