package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.config.Secret;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.provider.signing.StandardWebhooksSigner;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Endpoints per tenant: one provider, {@code endpoints: perTenant}, and 20 tenants each with its
 * own endpoint, each a strict mock (no burst) enforcing its own limit: 10 given the provider's
 * 4/s toward a limit of 5/s, 10 overriding it with 3/s toward a limit of 4/s. A 21st endpoint
 * answers 500 to everything: it is disabled, and once it answers again its probe enables it. A
 * 22nd tenant has no endpoint. Every endpoint is paced at its own rate, none answers 429, the
 * failing one slows none of the others, and every call is signed with the provider's secret.
 */
@ExtendWith(RealServers.class)
class EndpointsPerTenantIT {
  private static final int ENDPOINTS = 20;
  private static final int EVENTS = 13;
  private static final String WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @Test
  @DisplayName("20 endpoints each at its own rate, unslowed by a failing one, which is disabled")
  void eachEndpointIsItsOwnDestination(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    List<MockProvider> mocks = new ArrayList<>();
    List<AutoCloseable> closing = new ArrayList<>();
    try (MockProvider failing = MockProvider.start(1000, Duration.ZERO)) {
      failing.answerNext(1_000_000, new MockProvider.Answer(500, null));
      String hooks = Providers.uniqueName("hooks");
      StringBuilder tenants = new StringBuilder();
      for (int i = 0; i < ENDPOINTS; i++) {
        int rate = rateOf(i);
        // Each limit a call a second above the rate the endpoint is given: 0.8 L and 0.75 L, room
        // for a shared test JVM's jitter at rates this low (LeakPrecisionIT holds 0.96 L).
        MockProvider mock = MockProvider.start(rate + 1, Duration.ZERO);
        mocks.add(mock);
        tenants.append(i < ENDPOINTS / 2
            ? "  t%d: { endpoints: { %s: \"%s\" } }\n".formatted(i, hooks, mock.url())
            : "  t%d: { endpoints: { %s: { url: \"%s\", rate: %d/s } } }\n"
                .formatted(i, hooks, mock.url(), rate));
      }
      tenants.append("  bad: { endpoints: { %s: \"%s\" } }\n".formatted(hooks, failing.url()));
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s, 30s]
          maxAttempts: 20
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              endpoints: perTenant
              allowPrivateNetworks: true
              allowPlainHttp: true
              rate: 4/s
              maxInFlight: 4
              timeout: 2s
              disableAfter: 1s
              probeAfter: 3s
              signing: { standardWebhooks: { secrets: ["%s"] } }
              sharedSigningSecret: true
              quotas: { std: { capacity: 10, refill: 1/s } }
          tenants:
          %s""".formatted(hooks, WHSEC, tenants), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> events = new ArrayList<>();
      Set<String> goodIds = new HashSet<>();
      for (int n = 0; n < EVENTS; n++) {
        for (int i = 0; i < ENDPOINTS; i++) {
          events.add(new Ready("t" + i + "-" + n, "t" + i, "std", hooks));
          goodIds.add("t" + i + "-" + n);
        }
        events.add(new Ready("bad-" + n, "bad", "std", hooks));
      }
      events.add(new Ready("lost-1", "nobody", "std", hooks));
      closing.add(io.sluice.relay.RelayService.start(config, io.sluice.relay.RelayListener.NONE));
      Tally tally = new Tally();
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), tally)) {
        Await.until("the dispatcher to own its partitions", Duration.ofSeconds(30),
            d.dispatcher::assignedReadyPartitions, n -> n == 2);
        Pipeline.produceReady(kafka, topics, events);
        Set<String> watched = new HashSet<>(goodIds);
        watched.add("lost-1");
        Map<String, String> settled =
            Pipeline.awaitSettled(kafka, topics, watched, Duration.ofSeconds(15));
        Await.until("the failing endpoint disabled", Duration.ofSeconds(5),
            () -> tally.get("endpointDisabled:" + hooks), n -> n >= 1);

        assertEquals("no_endpoint", settled.get("lost-1"), "a tenant with no endpoint: no call");
        assertEquals(1, tally.get("dead:" + hooks + ":no_endpoint"), tally::toString);
        StandardWebhooksSigner verifier = new StandardWebhooksSigner(
            List.of(Secret.resolve(WHSEC, Map.of())));
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < ENDPOINTS; i++) {
          List<MockProvider.Call> calls = mocks.get(i).calls();
          report.append(String.format(" t%d %d/s %d calls %d 429s %.2fs;", i, rateOf(i),
              calls.size(), mocks.get(i).rateLimited(),
              (calls.get(calls.size() - 1).atNanos() - calls.get(0).atNanos()) / 1e9));
        }
        System.out.printf("endpoints per tenant:%s failing endpoint called %d times, tally %s%n",
            report, failing.callCount(), tally);
        for (int i = 0; i < ENDPOINTS; i++) {
          List<MockProvider.Call> calls = mocks.get(i).calls();
          assertEquals(EVENTS, calls.size(), "endpoint t" + i + " got each of its events once");
          assertEquals(0, mocks.get(i).rateLimited(), "endpoint t" + i + " never overrun");
          double span = (calls.get(EVENTS - 1).atNanos() - calls.get(0).atNanos()) / 1e9;
          double ideal = (EVENTS - 1) / (double) rateOf(i);
          assertTrue(span >= ideal * 0.9, "t" + i + " faster than its own rate: " + span);
          assertTrue(span <= ideal + 1.5, "t" + i + " held back: " + span + " s for "
              + ideal + " s");
          for (MockProvider.Call c : calls) {
            String id = c.headers().get(StandardWebhooksSigner.ID);
            long at = Long.parseLong(c.headers().get(StandardWebhooksSigner.TIMESTAMP));
            assertEquals(verifier.signature(id, at, c.body()),
                c.headers().get(StandardWebhooksSigner.SIGNATURE), "signed per endpoint");
          }
        }
        // Failing from its first call, disabled after 1 s and 3 failures, probed every 3 s: a
        // few calls, not one per event and retry.
        int failingCalls = failing.callCount();
        assertTrue(failingCalls < 2 * EVENTS, "the disabled endpoint was left alone: "
            + failingCalls + " calls");

        // It recovers: its next probe (within probeAfter, 3 s) is answered, and it is enabled.
        failing.reset();
        Await.until("the recovered endpoint enabled by its probe", Duration.ofSeconds(8),
            () -> tally.get("endpointEnabled:" + hooks), n -> n >= 1);
        assertEquals(200, failing.calls().get(0).status(), "the probe, answered");
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
        for (MockProvider m : mocks) {
          m.close();
        }
      }
    }
  }

  /**
   * {@code totalRate}: 20 endpoints each at 5/s (100/s together) under a total of 36/s, all
   * served by ONE strict mock (at most 40 calls in any sliding second, no burst, over all
   * endpoints: the total at 0.9 of it, room for a shared test JVM's jitter), ten tenants of tier gold (weight 3) and ten of std (weight 1), every endpoint
   * backlogged. The provider never answers 429; no endpoint gets more than 5 calls in any second
   * (its own spacing holds under the total); and over 6 s of the steady state the tiers share the
   * total by weight, gold 3/4 and std 1/4, each within 5% ({@code TotalShares}).
   */
  @Test
  @DisplayName("a total across 20 endpoints: never over it, each endpoint's spacing kept, tiers by weight")
  void theTotalCapsEveryEndpointTogetherSharedByTierWeight(KafkaBroker kafka,
      RedisServerProcess redis) throws Exception {
    int endpoints = 20;
    int events = 40;
    List<AutoCloseable> closing = new ArrayList<>();
    try (MockProvider strict = MockProvider.start(40, Duration.ZERO)) {
      String hooks = Providers.uniqueName("hooks");
      StringBuilder tenants = new StringBuilder();
      for (int i = 0; i < endpoints; i++) {
        tenants.append("  t%d: { tier: %s, endpoints: { %s: \"%s/t%d\" } }\n"
            .formatted(i, tierOf(i), hooks, strict.url(), i));
      }
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s, 30s]
          maxAttempts: 20
          tiers: { gold: { weight: 3 }, std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              endpoints: perTenant
              allowPrivateNetworks: true
              allowPlainHttp: true
              rate: 5/s
              totalRate: 36/s
              maxInFlight: 4
              timeout: 2s
              quotas: { gold: { capacity: 10, refill: 1/s }, std: { capacity: 10, refill: 1/s } }
          tenants:
          %s""".formatted(hooks, tenants), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> ready = new ArrayList<>();
      for (int n = 0; n < events; n++) {
        for (int i = 0; i < endpoints; i++) {
          ready.add(new Ready("t" + i + "-" + n, "t" + i, tierOf(i), hooks));
        }
      }
      closing.add(io.sluice.relay.RelayService.start(config, io.sluice.relay.RelayListener.NONE));
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), new Tally())) {
        Await.until("the dispatcher to own its partitions", Duration.ofSeconds(30),
            d.dispatcher::assignedReadyPartitions, n -> n == 2);
        Pipeline.produceReady(kafka, topics, ready);
        // Every lane warm and running (2 s), then 6 s of the steady state: about 300 calls.
        Await.until("8 s of calls at the total", Duration.ofSeconds(20), strict::callCount,
            n -> n >= 2 * 36 + 6 * 36 + 10);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      List<MockProvider.Call> calls = strict.calls();
      long from = calls.get(0).atNanos() + 2_000_000_000L;
      long to = from + 6_000_000_000L;
      double gold = 0;
      double std = 0;
      int most = 0;
      Map<String, List<Long>> byEndpoint = new java.util.HashMap<>();
      for (MockProvider.Call c : calls) {
        byEndpoint.computeIfAbsent(c.path(), p -> new ArrayList<>()).add(c.atNanos());
        if (c.atNanos() >= from && c.atNanos() < to) {
          int i = Integer.parseInt(c.path().substring(c.path().lastIndexOf("/t") + 2));
          if (tierOf(i).equals("gold")) {
            gold++;
          } else {
            std++;
          }
        }
      }
      for (List<Long> at : byEndpoint.values()) {
        most = Math.max(most, mostInAnySecond(at));
      }
      int total = mostInAnySecond(calls.stream().map(MockProvider.Call::atNanos).toList());
      long first = calls.get(0).atNanos();
      System.out.println("totalRate: 429s at " + calls.stream().filter(c -> c.status() == 429)
          .map(c -> String.format("%.3f s", (c.atNanos() - first) / 1e9)).toList());
      System.out.printf("totalRate: %d calls, at most %d in any second over all endpoints and %d "
          + "at one endpoint; steady 6 s: gold %.2f/s, std %.2f/s (gold's part %.3f), 429s %d%n",
          calls.size(), total, most, gold / 6, std / 6, gold / (gold + std), strict.rateLimited());
      assertEquals(0, strict.rateLimited(), "never above 40 in any second at the provider");
      assertTrue(total <= 40, "at most 40 calls in any second: " + total);
      assertTrue(most <= 5, "no endpoint above its own 5/s in any second: " + most);
      // Within 3 points of the weights, the fairness bench's bound: over a 6 s window of 216
      // calls a point is about two calls, and one lane's part is set every 250 ms.
      assertEquals(0.75, gold / (gold + std), 0.03, "gold's part of the total, by weight");
      assertTrue(gold + std >= 6 * 36 * 0.9, "the total used: " + (gold + std) / 6 + "/s");
    }
  }

  /** The most of {@code atNanos} in any half-open second. */
  private static int mostInAnySecond(List<Long> atNanos) {
    List<Long> sorted = atNanos.stream().sorted().toList();
    int most = 0;
    for (int i = 0, j = 0; i < sorted.size(); i++) {
      while (sorted.get(i) - sorted.get(j) >= 1_000_000_000L) {
        j++;
      }
      most = Math.max(most, i - j + 1);
    }
    return most;
  }

  private static String tierOf(int i) {
    return i % 2 == 0 ? "gold" : "std";
  }

  /** Tenants t0..t9 at the provider's 4/s, t10..t19 at their own 3/s. */
  private static int rateOf(int i) {
    return i < ENDPOINTS / 2 ? 4 : 3;
  }
}
