package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.SluiceApp;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ordering keys on a real broker and redis-server, the three roles running as {@code sluice run}
 * runs them: two tenants, four keys each, ten events a key (and ten unordered events), all sent at
 * once against a quota that defers most of them at the gate, a provider that answers 500 to the
 * first calls it gets (retried round the ladder) and admits no burst (a strict sliding second).
 * From the provider's side of the wire, every key's calls come in production order, and no event
 * is called before the one before it has its outcome: a call of event {@code i + 1} of a key only
 * ever follows a 200 to event {@code i}. The same again with the dispatcher in a process of its own,
 * SIGKILLed once a third of the events are delivered, and a second one taking its partitions over.
 *
 * <p>Red without ordering: {@code -Dsluice.ordering.it=none} runs the same with {@code ordering:
 * none} (the check of the order fails, naming the key and its calls).
 */
@ExtendWith(RealServers.class)
class OrderingKeysIT {
  private static final List<String> TENANTS = List.of("acme", "globex");
  private static final List<String> KEYS = List.of("order:1", "order:2", "order:3", "order:4");
  private static final int PER_KEY = 10;
  private static final int UNORDERED = 10;
  private static final int FAILED = 3;

  @Test
  @DisplayName("every key's calls in production order through quota deferrals and 500 retries")
  void everyKeysCallsComeInProductionOrderThroughDeferralsAndRetries(KafkaBroker kafka,
      RedisServerProcess redis) throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    try (MockProvider mock = MockProvider.start(40, Duration.ZERO)) {
      Run run = Run.prepare(kafka, redis, unique, mock);

      try (SluiceApp app = SluiceApp.start(run.config(), EnumSet.allOf(SluiceApp.Role.class), null,
          new MetricRegistry(), -1)) {
        Await.untilRead("every event delivered once", Duration.ofSeconds(150),
            () -> delivered(mock).size(), n -> n == run.produced().size());
      }

      List<MockProvider.Call> calls = mock.calls();
      assertEquals(Set.copyOf(run.produced()), delivered(mock), "every event delivered");
      assertEquals(FAILED, calls.stream().filter(c -> c.status() == 500).count(), "the provider's 500s");
      assertInOrder(calls, false);
      // The quota deferred events at the gate, and followers waited for their heads round the ladder.
      Map<String, Integer> reasons = reasonsOnTheLadder(kafka, run.topics());      System.out.printf("ordering keys: %d calls for %d events (%d answered 500); reasons on the ladder: %s%n",
          calls.size(), run.produced().size(), FAILED, reasons);
      assertTrue(reasons.getOrDefault("rate_limited", 0) > 0, "the quota deferred some: " + reasons);
      assertTrue(reasons.getOrDefault("ordering", 0) > 0, "followers waited for their turn: " + reasons);
      assertTrue(reasons.getOrDefault("provider_5xx", 0) >= FAILED, "each 500 retried: " + reasons);
    }
  }

  @Test
  @DisplayName("every key's calls in order across a dispatcher SIGKILLed mid-run and its successor")
  void everyKeysCallsStayInOrderAcrossADispatcherKilledMidRun(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    try (MockProvider mock = MockProvider.start(40, Duration.ZERO)) {
      Run run = Run.prepare(kafka, redis, unique, mock);

      try (SluiceApp app = SluiceApp.start(run.config(), EnumSet.of(SluiceApp.Role.GATE, SluiceApp.Role.RELAY), null,
          new MetricRegistry(), -1)) {
        try (ChildDispatcher first = ChildDispatcher.start("ordering-first-" + unique, run.yaml(), Map.of())) {
          Await.untilRead("a third delivered by the first dispatcher", Duration.ofSeconds(120),
              () -> delivered(mock).size(), n -> n >= run.produced().size() / 3);
          first.kill();
        }
        int beforeTheKill = delivered(mock).size();
        try (ChildDispatcher second = ChildDispatcher.start("ordering-second-" + unique, run.yaml(), Map.of())) {
          Await.untilRead("every event delivered by the second", Duration.ofSeconds(180),
              () -> delivered(mock).size(), n -> n == run.produced().size());
        }
        System.out.printf("ordering keys across a SIGKILL: %d delivered before it, %d calls for %d events%n",
            beforeTheKill, mock.callCount(), run.produced().size());
      }
      assertEquals(Set.copyOf(run.produced()), delivered(mock), "every event delivered");
      assertInOrder(mock.calls(), true);
    }
  }

  /**
   * One test's pipeline before it runs: its configuration, its topics, the provider's first
   * {@value #FAILED} answers scripted to be 500s, and every event sent.
   */
  private record Run(String yaml, SluiceConfig config, Topics topics, List<String> produced) {
    static Run prepare(KafkaBroker kafka, RedisServerProcess redis, String unique, MockProvider mock) {
      String yaml = OrderingKeysIT.yaml(kafka, redis, unique, mock);
      SluiceConfig config = ConfigLoader.parse(yaml, Map.of());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      mock.answerNext(FAILED, new MockProvider.Answer(500, null));
      return new Run(yaml, config, topics, produce(kafka, topics, "ordered-" + unique));
    }
  }

  /** The configuration of both tests: one strict provider, ordered per key, a quota deferring most events. */
  private static String yaml(KafkaBroker kafka, RedisServerProcess redis, String unique, MockProvider mock) {
    return """
        kafka: { bootstrap: "%s", topicPrefix: "o%s." }
        redis: { uri: "%s" }
        ladder: [1s, 5s]
        maxAttempts: 8
        tiers: { free: { weight: 1 } }
        defaultTier: free
        providers:
          ordered-%s:
            url: "%s"
            rate: 20/s
            maxInFlight: 4
            timeout: 5s
            ordering: %s
            quotas: { free: { capacity: 4, refill: 10/s } }
        gate: { applicationId: "o%s-gate" }
        dispatcher: { groupId: "o%s-dispatcher" }
        http: { port: 0 }
        """.formatted(kafka.bootstrapServers(), unique, redis.uri(), unique, mock.url(),
        System.getProperty("sluice.ordering.it", "perKey"), unique, unique);
  }

  /** Sends every key's events, the keys interleaved, then the unordered ones: the ids, as sent. */
  private static List<String> produce(KafkaBroker kafka, Topics topics, String provider) {
    List<String> produced = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka)) {
      for (int i = 0; i < PER_KEY; i++) {
        for (String key : KEYS) {
          for (String tenant : TENANTS) {
            produced.add(send(producer, topics, provider, tenant, key, i));
          }
        }
      }
      for (int i = 0; i < UNORDERED; i++) {
        produced.add(send(producer, topics, provider, TENANTS.get(i % 2), null, i));
      }
      producer.flush();
    }
    return produced;
  }

  /**
   * Every key's calls, from the provider's side: event {@code i + 1} is never called before a 200
   * to event {@code i}. With {@code againAllowed}, a call of an event delivered already (the
   * at-least-once second call of an event whose outcome a killed dispatcher never wrote) is let
   * pass; a call of an event ahead of its turn never is.
   */
  private static void assertInOrder(List<MockProvider.Call> calls, boolean againAllowed) {
    Map<String, List<MockProvider.Call>> byKey = new LinkedHashMap<>();
    for (MockProvider.Call call : calls) {
      String id = call.idempotencyKey();
      if (!id.contains(".u.")) {
        byKey.computeIfAbsent(id.substring(0, id.lastIndexOf('.')), k -> new ArrayList<>()).add(call);
      }
    }
    assertEquals(TENANTS.size() * KEYS.size(), byKey.size());
    byKey.forEach((key, keyCalls) -> {
      int expected = 0;
      for (MockProvider.Call call : keyCalls) {
        int index = Integer.parseInt(call.idempotencyKey().substring(key.length() + 1));
        if (againAllowed && index < expected) {
          continue;
        }
        int shown = expected;
        assertEquals(expected, index, () -> key + ": event " + index + " called while event " + shown
            + " had no outcome; calls: " + shown(keyCalls));
        if (call.status() == 200) {
          expected++;
        }
      }
      assertEquals(PER_KEY, expected, key + ": " + shown(keyCalls));
    });
  }

  private static String send(KafkaProducer<byte[], byte[]> producer, Topics topics, String provider,
      String tenant, String key, int i) {
    String id = key == null ? tenant + ".u." + i : tenant + "." + key + "." + i;
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider + "\""
        + (key == null ? "" : ",\"orderingKey\":\"" + key + "\"") + ",\"payload\":{\"i\":" + i + "}}";
    producer.send(new ProducerRecord<>(topics.inbound(), tenant.getBytes(UTF_8), json.getBytes(UTF_8)));
    return id;
  }

  /** The ids the provider answered 200. */
  private static Set<String> delivered(MockProvider mock) {
    return mock.calls().stream().filter(c -> c.status() == 200).map(MockProvider.Call::idempotencyKey)
        .collect(Collectors.toSet());
  }

  private static String shown(List<MockProvider.Call> calls) {
    return calls.stream().map(c -> c.idempotencyKey() + "=" + c.status()).collect(Collectors.joining(", "));
  }

  /** How many records of each reason went round the ladder (every delay topic, read to its end). */
  private static Map<String, Integer> reasonsOnTheLadder(KafkaBroker kafka, Topics topics) {
    Map<String, Integer> reasons = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> reader = KafkaClients.reader(kafka.bootstrapServers(), List.of())) {
      List<TopicPartition> partitions = topics.ladder().stream().map(topics::delay)
          .flatMap(t -> reader.partitionsFor(t).stream().map(p -> new TopicPartition(t, p.partition())))
          .toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = reader.endOffsets(partitions);
      Await.untilRead("the delay topics read to their end", Duration.ofSeconds(30), () -> {
        reader.poll(Duration.ofMillis(200)).forEach(r -> HeaderValues.last(r.headers(), HeaderNames.REASON)
            .ifPresent(reason -> reasons.merge(reason, 1, Integer::sum)));
        return partitions.stream().filter(tp -> reader.position(tp) < ends.get(tp)).count();
      }, behind -> behind == 0);
    }
    return reasons;
  }
}
