package io.sluice.app.it;

import io.sluice.testkit.Await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records on {@code sluice.ready} that the gate would never have written (a DLQ replayed by hand,
 * a tool writing straight into the topic) are dead-lettered with a reason and their original
 * bytes, and the dispatcher keeps going. Before, a record without a tenant or with a cost of 0
 * threw inside the fair queue and killed the dispatcher thread for good.
 */
@ExtendWith(RealServers.class)
class MalformedReadyIT {
  private static final String CASE = "test-case";

  /** A record as a test writes it straight into the ready topic. */
  private record Bad(String name, byte[] value, String attempt, String expectedReason) {}

  @Test
  @DisplayName("malformed records on sluice.ready: dead-lettered with a reason, good events flow on")
  void malformedRecordsAreDeadLettered(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("malformed");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      String ok = "\"tenant\":\"t\",\"provider\":\"" + provider + "\"";
      List<Bad> bad = List.of(
          new Bad("unparseable", "{\"id\":\"x\",".getBytes(UTF_8), null, "invalid"),
          new Bad("null-value", null, null, "invalid"),
          new Bad("empty-value", new byte[0], null, "invalid"),
          new Bad("array", "[1,2,3]".getBytes(UTF_8), null, "invalid"),
          new Bad("no-tenant", ("{\"id\":\"x1\",\"provider\":\"" + provider + "\"}")
              .getBytes(UTF_8), null, "invalid"),
          new Bad("cost-zero", ("{\"id\":\"x2\"," + ok + ",\"cost\":0}").getBytes(UTF_8), null,
              "invalid"),
          new Bad("cost-negative", ("{\"id\":\"x3\"," + ok + ",\"cost\":-5}").getBytes(UTF_8),
              null, "invalid"),
          new Bad("unknown-provider",
              "{\"id\":\"x4\",\"tenant\":\"t\",\"provider\":\"nobody\"}".getBytes(UTF_8), null,
              "unknown_provider"),
          new Bad("negative-attempt", ("{\"id\":\"x5\"," + ok + "}").getBytes(UTF_8), "-7",
              "invalid"),
          new Bad("garbled-attempt", ("{\"id\":\"x6\"," + ok + "}").getBytes(UTF_8), "seven",
              "invalid"));

      List<Ready> before = new ArrayList<>();
      List<Ready> after = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        (i < 50 ? before : after).add(new Ready("m" + i, "tenant-" + (i % 5), "std", provider));
      }
      Set<String> ids = new HashSet<>();
      before.forEach(e -> ids.add(e.id()));
      after.forEach(e -> ids.add(e.id()));
      List<AutoCloseable> closing = new ArrayList<>();
      Map<String, String> settled;
      Map<String, ConsumerRecord<byte[], byte[]>> dead;
      try (Running dispatcher = new Running(config, "dispatcher-1", Providers.http(config),
          Providers.redisLeak(config, closing), new Tally())) {
        Pipeline.produceReady(kafka, topics, before);
        produceBad(kafka, topics, bad);
        Pipeline.produceReady(kafka, topics, after);
        settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
        dead = awaitDead(kafka, topics, bad.size(), Duration.ofSeconds(30));
        assertTrue(dispatcher.dispatcher.isRunning(), "the dispatcher thread lives on");
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      settled.forEach((id, where) -> assertEquals("outcome", where, id));
      Map<String, String> reasons = new TreeMap<>();
      Map<String, String> expected = new TreeMap<>();
      for (Bad b : bad) {
        ConsumerRecord<byte[], byte[]> r = dead.get(b.name());
        expected.put(b.name(), b.expectedReason());
        reasons.put(b.name(), r == null ? "(none)"
            : HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("?"));
        if (r != null) {
          assertArrayEquals(b.value(), r.value(), b.name() + ": the original bytes are kept");
          String detail = HeaderValues.last(r.headers(), HeaderNames.DETAIL).orElse("");
          System.out.printf("malformed %-16s -> %s: %s%n", b.name(), reasons.get(b.name()), detail);
          assertTrue(!detail.isBlank(), b.name() + " has a detail");
        }
      }
      assertEquals(expected, reasons, "each malformed record dead-lettered once, with its reason");
    }
  }

  private static void produceBad(KafkaBroker kafka, Topics topics, List<Bad> bad)
      throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka)) {
      for (Bad b : bad) {
        Headers headers = new RecordHeaders();
        headers.add(CASE, b.name().getBytes(UTF_8));
        if (b.attempt() != null) {
          headers.add(HeaderNames.ATTEMPT, b.attempt().getBytes(UTF_8));
        }
        producer.send(new ProducerRecord<>(topics.ready(), null, "t".getBytes(UTF_8), b.value(),
            headers)).get();
      }
    }
  }

  /** Dead letters carrying the test-case header, by case, until {@code n} distinct arrived. */
  private static Map<String, ConsumerRecord<byte[], byte[]>> awaitDead(KafkaBroker kafka,
      Topics topics, int n, Duration within) {
    Map<String, ConsumerRecord<byte[], byte[]>> dead = new LinkedHashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = Pipeline.reader(kafka)) {
      c.subscribe(List.of(topics.dlq()));
      Await.atMost(within, () -> {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          HeaderValues.last(r.headers(), CASE).ifPresent(name -> {
            if (dead.putIfAbsent(name, r) != null) {
              throw new AssertionError(name + " dead-lettered twice");
            }
          });
        }
        return dead.size();
      }, size -> size >= n);
    }
    return dead;
  }
}
