package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away while a dispatcher calls a provider that answers 200, and the dispatcher is
 * SIGKILLed before the broker is back (the chaos run's main source of duplicate calls, issue 39):
 * every answer received meanwhile must reach the delivered log (Redis, which is up), so that the
 * partition's next owner settles those events instead of calling them again; and the dispatcher
 * stops calling soon after its settlements stop being acknowledged, so the kill risks little
 * more than what was in flight.
 *
 * <p>Its own broker process (the shared test broker cannot be killed) and its own redis-server.
 */
class BrokerOutageSigkillIT {
  private static final int RATE = 100;
  private static final int MAX_IN_FLIGHT = 20;
  /** How long the broker stays away before the dispatcher is killed. */
  private static final Duration OUTAGE = Duration.ofSeconds(6);
  /**
   * New calls stop this long after the oldest settlement left unacknowledged
   * ({@code UnwrittenOutcomes}), plus a second of slack for a loaded machine.
   */
  private static final Duration CALLS_STOP_WITHIN = Duration.ofMillis(3500);

  /**
   * A call made this long before the kill may still be in flight at it (the provider answers in
   * 100 ms): the most a kill may have the next owner call again.
   */
  private static final Duration IN_FLIGHT_WINDOW = Duration.ofMillis(500);

  private static final String YAML = """
      ladder: [250ms, 1s]
      tiers: { gold: { weight: 1 } }
      defaultTier: gold
      providers:
        %s:
          url: %s
          rate: %d/s
          maxInFlight: %d
          timeout: 30s
          quotas: { gold: { capacity: 10, refill: 1/s } }
      dispatcher: { bufferSize: 5000 }
      """;

  @Test
  @DisplayName("broker away, then the dispatcher SIGKILLed: the next owner calls again only what "
      + "was in flight, and calls stop while outcomes cannot be written")
  void answersReceivedWhileTheBrokerIsAwayAreNotCalledAgain() throws Exception {
    try (BrokerProcess kafka = BrokerProcess.start("outage");
        RedisServerProcess redis = RedisServerProcess.start();
        MockProvider mock = MockProvider.start(100_000, 1000, Duration.ofMillis(100))) {
      String provider = Providers.uniqueName("outage");
      String yaml = YAML.formatted(provider, mock.url(), RATE, MAX_IN_FLIGHT);
      String unique = UUID.randomUUID().toString().substring(0, 8);
      Map<String, String> env = Map.of(
          "SLUICE_KAFKA__BOOTSTRAP", kafka.bootstrapServers(),
          "SLUICE_KAFKA__TOPIC_PREFIX", "o" + unique + ".",
          "SLUICE_REDIS__URI", redis.uri(),
          "SLUICE_DISPATCHER__GROUP_ID", "dispatch-" + unique);
      SluiceConfig config = ConfigLoader.parse(yaml, env);
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      List<Ready> events = IntStream.range(0, 2500)
          .mapToObj(i -> new Ready("o" + i, "gold-" + (i % 10), "gold", provider)).toList();
      Set<String> ids = events.stream().map(Ready::id).collect(Collectors.toSet());
      Pipeline.produceReady(kafka, topics, events);

      long brokerKilledAt;
      long dispatcherKilledAt;
      int callsAtOutage;
      int callsAtKill;
      try (RelayService relay = RelayService.start(config, RelayListener.NONE);
          ChildDispatcher first = ChildDispatcher.start("outage-first", yaml, env)) {
        Await.until("300 calls from the first dispatcher", Duration.ofSeconds(60),
            mock::callCount, n -> n >= 300);
        kafka.kill();
        brokerKilledAt = System.nanoTime();
        callsAtOutage = mock.callCount();
        // The outage is the scenario's, not a wait for something: the broker stays away this long.
        Await.until("the broker away for " + OUTAGE.toSeconds() + " s", OUTAGE.plusSeconds(5),
            () -> System.nanoTime() - brokerKilledAt >= OUTAGE.toNanos() - 1_500_000_000L);
        Path dump = threadDump(first, "outage-first-jstack.txt");
        Await.until("the broker away for " + OUTAGE.toSeconds() + " s", OUTAGE.plusSeconds(5),
            () -> System.nanoTime() - brokerKilledAt >= OUTAGE.toNanos());
        first.kill();
        dispatcherKilledAt = System.nanoTime();
        callsAtKill = mock.callCount();
        System.out.printf("broker outage: %d calls before it, %d during it (%d ms) before the "
                + "SIGKILL; the first dispatcher's threads 1.5 s before the kill in %s%n",
            callsAtOutage, callsAtKill - callsAtOutage,
            TimeUnit.NANOSECONDS.toMillis(dispatcherKilledAt - brokerKilledAt), dump);
        kafka.startAgain();
        Map<String, String> settled;
        Tally tally = new Tally();
        try (DispatcherService second = DispatcherService.start(config, tally)) {
          settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(180));
          System.out.printf("broker outage: the second dispatcher skipped %d records settled "
                  + "beyond the commit and settled %d delivered by the first%n",
              second.dispatcher().skippedAsSettled(), second.dispatcher().skippedAsDelivered());
        }
        settled.forEach((id, where) -> assertEquals("outcome", where, id));
      }

      List<MockProvider.Call> deliveries = mock.calls().stream()
          .filter(c -> c.status() >= 200 && c.status() < 300).toList();
      Map<String, Integer> calls = Providers.count(
          deliveries.stream().map(MockProvider.Call::idempotencyKey).toList());
      List<String> twice = calls.entrySet().stream().filter(e -> e.getValue() > 1)
          .map(Map.Entry::getKey).sorted().toList();
      Map<String, Long> firstCall = new HashMap<>();
      deliveries.forEach(c -> firstCall.putIfAbsent(c.idempotencyKey(), c.atNanos()));
      long inFlightAtKill = mock.calls().stream()
          .filter(c -> c.atNanos() > dispatcherKilledAt - IN_FLIGHT_WINDOW.toNanos()
              && c.atNanos() < dispatcherKilledAt)
          .count();
      long lateCalls = mock.calls().stream()
          .filter(c -> c.atNanos() > brokerKilledAt + CALLS_STOP_WITHIN.toNanos()
              && c.atNanos() < dispatcherKilledAt)
          .count();
      System.out.printf("broker outage: %d events called twice (%.2f%%), first called at %s ms "
              + "from the broker's death; %d calls made more than %d ms into the outage, %d in "
              + "the last %d ms before the kill%n",
          twice.size(), 100.0 * twice.size() / ids.size(), twice.stream()
              .map(k -> TimeUnit.NANOSECONDS.toMillis(firstCall.get(k) - brokerKilledAt))
              .sorted().limit(40).toList(), lateCalls, CALLS_STOP_WITHIN.toMillis(), inFlightAtKill,
          IN_FLIGHT_WINDOW.toMillis());
      assertEquals(ids, calls.keySet(), "every event delivered");
      // The first dispatcher stopped calling once its settlements went unacknowledged: nothing
      // called in the outage's last seconds, so nothing in flight at the kill.
      assertEquals(0, lateCalls, "calls made more than " + CALLS_STOP_WITHIN.toMillis()
          + " ms into the broker's outage");
      // Called again: at most what was in flight at the kill; every answer received before it is
      // in the delivered log. Before: every answer handled in the outage was called again.
      assertTrue(twice.size() <= inFlightAtKill, twice.size() + " events called twice, e.g. "
          + twice.subList(0, Math.min(20, twice.size())));
    }
  }

  /** {@code jstack} of {@code child} to {@code target/child-dispatchers/<file>}. */
  private static Path threadDump(ChildDispatcher child, String file)
      throws IOException, InterruptedException {
    Path out = Path.of("target", "child-dispatchers", file);
    Files.createDirectories(out.getParent());
    Process jstack = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
        Long.toString(child.pid())).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    jstack.waitFor(30, TimeUnit.SECONDS);
    return out;
  }
}
