package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batches on a real broker and redis-server, at a strict provider allowing 10 calls in any sliding
 * second with no burst, paced at 9 calls/s with {@code batch: {maxEvents: 100}}: a backlog is
 * delivered at about 900 events a second, never refused, each event with one outcome of its own;
 * the one event the provider's answer lists as failed is retried, alone, and delivered.
 */
@ExtendWith(RealServers.class)
class BatchIT {
  private static final int EVENTS = 4_000;
  private static final String FAILS_ONCE = "b-1234";
  private static final Pattern EVENT = Pattern.compile("\"n\":\"([^\"]+)\"");

  @Test
  @DisplayName("100 events a call at 9 calls/s: ~900 events/s, no 429, one outcome each, a failed event retried alone")
  void batchesMultiplyWhatACallLimitAllows(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    try (MockProvider mock = MockProvider.start(10, Duration.ZERO)) {
      Set<String> answeredFailed = new HashSet<>();
      mock.answerBodies(call -> {
        List<String> ids = eventsOf(call);
        if (ids.contains(FAILS_ONCE) && answeredFailed.add(FAILS_ONCE)) {
          return ("{\"results\":[{\"id\":\"" + FAILS_ONCE + "\",\"status\":503}]}").getBytes(UTF_8);
        }
        return null;
      });
      String provider = Providers.uniqueName("batch");
      SluiceConfig config = Pipeline.config("""
          ladder: [250ms, 1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 9/s
              maxInFlight: 4
              timeout: 5s
              batch: { maxEvents: 100 }
              quotas: { std: { capacity: 10, refill: 1/s } }
          dispatcher: { bufferSize: 2000 }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> events = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < EVENTS; i++) {
        events.add(new Ready("b-" + i, "tenant-" + (i % 4), "std", provider));
        ids.add("b-" + i);
      }
      Pipeline.produceReady(kafka, topics, events);

      List<AutoCloseable> closing = new ArrayList<>();
      closing.add(RelayService.start(config, RelayListener.NONE)); // brings the retry back
      Map<String, String> settled;
      Tally tally = new Tally();
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), tally)) {
        settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(120));
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }

      List<MockProvider.Call> calls = mock.calls();
      Map<String, Integer> sentTimes = new TreeMap<>();
      for (MockProvider.Call c : calls) {
        eventsOf(c).forEach(id -> sentTimes.merge(id, 1, Integer::sum));
      }
      long refused = calls.stream().filter(c -> c.status() == 429).count();
      // The backlog's pace: every call but the retry's, first to last.
      List<MockProvider.Call> firstRound = calls.stream()
          .filter(c -> eventsOf(c).size() > 1 || !eventsOf(c).contains(FAILS_ONCE)).toList();
      long spanNanos = firstRound.get(firstRound.size() - 1).atNanos() - firstRound.get(0).atNanos();
      int delivered = firstRound.stream().mapToInt(c -> eventsOf(c).size()).sum();
      double eventsPerSecond = (delivered - eventsOf(firstRound.get(firstRound.size() - 1)).size())
          / (spanNanos / 1e9);
      double callsPerSecond = (firstRound.size() - 1) / (spanNanos / 1e9);
      Map<String, Integer> outcomes = outcomesPerEvent(kafka, topics);
      String report = String.format("batch: %d events in %d calls (%.1f calls/s, %.0f events/s "
              + "delivered), %d answered 429, %s sent twice, %d outcome records for %d events",
          EVENTS, calls.size(), callsPerSecond, eventsPerSecond, refused,
          sentTimes.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
              .toList(), outcomes.values().stream().mapToInt(Integer::intValue).sum(),
          outcomes.size());
      System.out.println(report);
      StringBuilder timeline = new StringBuilder("batch timeline (ms after the first call: events):");
      for (MockProvider.Call c : calls) {
        timeline.append(' ').append((c.atNanos() - calls.get(0).atNanos()) / 1_000_000).append(':')
            .append(eventsOf(c).size());
      }
      System.out.println(timeline);

      assertEquals(Map.of("outcome", EVENTS), Providers.count(new ArrayList<>(settled.values())),
          "every event delivered: " + tally);
      assertEquals(0, refused, "the strict provider refused no call: " + report);
      assertTrue(eventsPerSecond >= 700, "a call carried up to 100 events: " + report);
      assertTrue(callsPerSecond <= 10, "a batch is one call of the leak: " + report);
      assertEquals(ids, outcomes.keySet(), report);
      assertTrue(outcomes.values().stream().allMatch(n -> n == 1), "one outcome each: " + report);
      assertEquals(Map.of(FAILS_ONCE, 2), sentTimes.entrySet().stream()
          .filter(e -> e.getValue() != 1)
          .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
          "only the failed event was sent again: " + report);
      MockProvider.Call retry = calls.stream().filter(c -> eventsOf(c).contains(FAILS_ONCE))
          .reduce((a, b) -> b).orElseThrow();
      assertTrue(retry.idempotencyKey().startsWith("batch-"), retry.idempotencyKey());
    }
  }

  /** The events a call carried: each payload's {@code n}. */
  private static List<String> eventsOf(MockProvider.Call call) {
    List<String> ids = new ArrayList<>();
    Matcher m = EVENT.matcher(new String(call.body(), UTF_8));
    while (m.find()) {
      ids.add(m.group(1));
    }
    return ids;
  }

  /** Records on the outcomes topic, per event id. */
  private static Map<String, Integer> outcomesPerEvent(KafkaBroker kafka, Topics topics) {
    Map<String, Integer> counts = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : Pipeline.readAll(kafka, topics.outcomes(),
        Duration.ofSeconds(30))) {
      HeaderValues.last(r.headers(), HeaderNames.EVENT_ID)
          .ifPresent(id -> counts.merge(id, 1, Integer::sum));
    }
    return counts;
  }
}
