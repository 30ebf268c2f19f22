package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.mock.LimitReplay;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitUnit;
import io.sluice.embedded.mock.ProviderWindow;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 12's "done when", on a real broker and a real redis-server: a strict provider (its own
 * process) enforcing 20 calls/s, 600 calls per sliding minute and 5,000 cost units per sliding
 * minute, announcing them only in its answers' headers, against Sluice configured at 100 calls/s
 * with no windows, two dispatcher instances. Sluice must converge with at most one 429 per limit,
 * then send with no 429 at 95% or more of the binding limit's allowance. Shorter than the bench
 * ({@code bench learned-limits}: 75 s measured per family); here 25 s.
 */
@ExtendWith(RealServers.class)
// Wait-bound (25 s measured at ten calls a second) and sharing nothing with other classes (its own
// provider processes, topics, groups and keys): it runs beside the classes that run one at a time,
// not in turn with them (CI's wall time).
@Execution(ExecutionMode.CONCURRENT)
class LearnedLimitsIT {
  private static final List<ProviderWindow> LIMITS = List.of(
      ProviderWindow.calls(20, Duration.ofSeconds(1)),
      ProviderWindow.calls(600, Duration.ofSeconds(60)),
      ProviderWindow.cost(5000, Duration.ofSeconds(60)));
  private static final long SETTLE_NANOS = 2_000_000_000L;
  private static final long SPAN_NANOS = 25_000_000_000L;

  // The three families run at once: each has its own provider process, topics, group and keys,
  // and sends a few calls a second, so they share nothing but the broker (CI's wall time).
  @Execution(ExecutionMode.CONCURRENT)
  @ParameterizedTest(name = "{0}, cost {1}")
  @DisplayName("converges from the headers alone, then sustains the allowance with no 429")
  @CsvSource({"ietf, 10, 3", "x-ratelimit, 5, 2", "x-ratelimit-periods, 1, 3"})
  void learnsTheProvidersLimits(String family, int cost, int limitsStated, KafkaBroker kafka,
      RedisServerProcess redis) throws Exception {
    try (ProviderProcess mock = ProviderProcess.withOptions("--limit", "20/1s", "--limit",
        "600/60s", "--cost-limit", "5000/60s", "--announce", family)) {
      String provider = Providers.uniqueName("learn");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 100/s
              learnedFloor: 0.05
              maxInFlight: 16
              maxCost: 10
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 4);
      int events = (int) (11 * (SETTLE_NANOS + SPAN_NANOS) / 1e9) + 100;
      produceReady(kafka, topics, provider, events, cost);
      long from;
      long to;
      List<LearnedLimit> learned;
      try (DispatcherService a = DispatcherService.start(config, DispatchListener.NONE);
          DispatcherService b = DispatcherService.start(config, DispatchListener.NONE)) {
        Await.until("a first call", Duration.ofSeconds(60), () -> mock.callCount() > 0);
        long first = mock.calls().get(0).atNanos();
        from = first + SETTLE_NANOS;
        to = from + SPAN_NANOS;
        Await.until("the end of the span", Duration.ofSeconds(60),
            () -> System.nanoTime() > to + 200_000_000L);
        learned = b.dispatcher().learner().current(provider);
      }
      List<LimitReplay.Arrival> arrivals = mock.calls().stream()
          .map(c -> new LimitReplay.Arrival(c.atNanos(), c.status(), cost)).toList();
      List<LimitReplay.PerLimit> per = LimitReplay.replay(LIMITS, arrivals, from, to);
      ProviderWindow binding = LimitReplay.binding(LIMITS, cost);
      long late429s = arrivals.stream().filter(c -> c.status() == 429 && c.atNanos() >= from)
          .count();
      System.out.printf("learned limits (%s, cost %d): %d calls, %d 429s (%d after convergence); "
          + "learned by the second instance: %s%n", family, cost, arrivals.size(),
          arrivals.stream().filter(c -> c.status() == 429).count(), late429s, learned);
      for (LimitReplay.PerLimit l : per) {
        System.out.printf("  %s%s: %.2f/s of %.2f/s (%.1f%%), max %d in a window, %d 429s%n",
            l.limit(), l.limit().equals(binding) ? " (binds)" : "", l.acceptedPerSecond(),
            l.allowancePerSecond(), 100 * l.ofAllowance(), l.maxInAnyWindow(),
            l.refusalsBreakingIt());
      }
      // x-ratelimit has room for one window per unit: 600/60s and 5000/60s, not 20/1s.
      assertEquals(limitsStated, learned.size(), "the second instance knows every limit stated: "
          + learned);
      for (LearnedLimit l : learned) {
        assertTrue(LIMITS.contains(new ProviderWindow(l.unit() == LimitUnit.CALLS
                ? ProviderWindow.Unit.CALLS : ProviderWindow.Unit.COST, l.quota(),
                Duration.ofMillis(l.windowMillis()))),
            "learned exactly what the provider enforces, window included: " + l);
      }
      for (LimitReplay.PerLimit l : per) {
        assertTrue(l.refusalsBreakingIt() <= 1, "at most one 429 for " + l.limit());
      }
      assertEquals(0, late429s, "no 429 after convergence");
      LimitReplay.PerLimit bound = per.stream().filter(l -> l.limit().equals(binding))
          .findFirst().orElseThrow();
      // Above: one call more or less in the span is 0.4% of it; a window learned 5% short (57 s for
      // 60 s) shows as 105%, and as 429s once a whole window has passed.
      assertTrue(bound.ofAllowance() >= 0.95 && bound.ofAllowance() <= 1.01, "the binding limit "
          + binding + " at " + bound.ofAllowance() + " of its allowance");
    }
  }

  /** {@code n} events of {@code cost} (sent as {@code Sluice-Cost}, which the provider counts). */
  private static void produceReady(KafkaBroker kafka, Topics topics, String provider, int n,
      int cost) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka)) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      long now = System.currentTimeMillis();
      for (int i = 0; i < n; i++) {
        String tenant = "tenant-" + (i % 10);
        String json = "{\"id\":\"e" + i + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
            + provider + "\",\"cost\":" + cost + ",\"payload\":{}}";
        RecordHeaders headers = new RecordHeaders();
        HeaderValues.put(headers, HeaderNames.TIER, "std");
        HeaderValues.put(headers, HeaderNames.FIRST_SEEN, now);
        acks.add(producer.send(new ProducerRecord<>(topics.ready(), null, now,
            tenant.getBytes(UTF_8), json.getBytes(UTF_8), headers)));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get();
      }
    }
  }
}
