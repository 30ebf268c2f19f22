package io.sluice.dispatcher.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.dispatch.DeliveredLog;
import io.sluice.dispatcher.dispatch.DeliveredLog.Delivered;
import io.sluice.dispatcher.dispatch.RedisDeliveredLog;
import io.sluice.dispatcher.it.Pipeline.Ready;
import io.sluice.dispatcher.it.Pipeline.Running;
import io.sluice.dispatcher.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisConnection;
import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partition's new owner does not call again what the delivered log says its previous owner
 * delivered beyond the last commit (a previous owner that died, or lost the partition while the
 * broker was away, before any commit went through): it writes their outcomes instead.
 */
@ExtendWith(RealServers.class)
class DeliveredLogTakeoverIT {
  @Test
  @DisplayName("records delivered beyond the commit by the previous owner are settled with an outcome, not called again")
  void aNewOwnerSkipsWhatTheDeliveredLogHolds(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("delivered");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      List<Ready> events = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        events.add(new Ready("d" + i, "tenant-" + (i % 3), "std", provider));
      }
      Pipeline.produceReady(kafka, topics, events); // offsets 0..19 of the only partition
      Set<String> ids = new LinkedHashSet<>();
      events.forEach(e -> ids.add(e.id()));
      List<AutoCloseable> closing = new ArrayList<>();
      try (RedisConnection connection = RedisConnection.open(config.redis())) {
        DeliveredLog log = new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId());
        TopicPartition ready0 = new TopicPartition(topics.ready(), 0);
        List<Delivered> previousOwner = new ArrayList<>();
        for (long offset = 5; offset < 15; offset++) {
          previousOwner.add(new Delivered(offset, 200, 1));
        }
        log.record(ready0, -1, previousOwner).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(10, log.since(ready0, 0).toCompletableFuture().get(5, TimeUnit.SECONDS).size());

        Map<String, String> settled;
        long skipped;
        try (Running dispatcher = new Running(config, "dispatcher-1", Providers.http(config),
            Providers.redisLeak(config, closing), log, new Tally())) {
          settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
          skipped = dispatcher.dispatcher.skippedAsDelivered();
        } finally {
          for (AutoCloseable c : closing) {
            c.close();
          }
        }
        settled.forEach((id, where) -> assertEquals("outcome", where, id));
        Set<String> called = new TreeSet<>();
        mock.calls().forEach(c -> called.add(c.idempotencyKey()));
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 20; i++) {
          if (i < 5 || i >= 15) {
            expected.add("d" + i);
          }
        }
        assertEquals(expected, called, "only the records the log did not hold were called");
        assertEquals(10, skipped);
      }
    }
  }
}
