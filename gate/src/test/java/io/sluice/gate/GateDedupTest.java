package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.ReplayOf;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A provider's {@code dedupWindow} at the gate, on TopologyTestDriver with in-memory stores and a
 * fake clock. A record read again after a crash: {@link DedupMarkTest}; the path on a real broker
 * and redis-server, and across a gate's dirty close: {@code GateDedupIT}.
 */
class GateDedupTest {
  static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s, 2m, 10m]
      reservationHorizon: 1s
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 50/s
          dedupWindow: 10m
          quotas: { free: { capacity: 2, refill: 1/s } }
        plain:
          url: http://localhost:8082/
          rate: 50/s
          quotas: { free: { capacity: 10, refill: 10/s } }
      gate: { leaseTarget: 0ms }
      """;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private GateTestDriver gate;

  private void start() {
    SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, new GateListener() {}, () -> config, TenantLookup.NONE, clock,
        new InMemorySeenIds(clock));
    gate = new GateTestDriver(wiring, "gate-dedup-test");
  }

  @AfterEach
  void close() {
    if (gate != null) {
      gate.close();
    }
  }

  private void send(String tenant, String id, String provider, String extra) {
    gate.sendInbound(tenant, id, provider, extra);
  }

  private static byte[] bytes(String s) {
    return GateTestDriver.bytes(s);
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    return HeaderValues.last(r.headers(), name).orElse(null);
  }

  private static JsonNode json(TestRecord<byte[], byte[]> r) throws IOException {
    return Json.mapper().readTree(r.value());
  }

  private List<String> readyIds() {
    return gate.ready.readRecordsToList().stream().map(r -> {
      try {
        return json(r).get("id").textValue();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }).toList();
  }

  @Test
  void shouldCallAnIdOnceWithinTheWindowAndTellTheRepeatItIsADuplicateOfTheFirst() throws IOException {
    start();
    send("acme", "order-1", "hooks", "");
    clock.advance(Duration.ofSeconds(30));
    send("acme", "order-1", "hooks", "");

    assertEquals(List.of("order-1"), readyIds());
    TestRecord<byte[], byte[]> told = gate.outcomes.readRecord();
    assertTrue(gate.outcomes.isEmpty());
    assertEquals("order-1", header(told, HeaderNames.EVENT_ID));
    assertEquals("duplicate", header(told, HeaderNames.OUTCOME));
    JsonNode outcome = json(told);
    assertEquals("duplicate", outcome.get("outcome").textValue());
    assertEquals("acme", outcome.get("tenant").textValue());
    assertEquals(gate.topics.inbound() + "-0@0", outcome.get("first").get("source").textValue());
    assertEquals("accepted", outcome.get("first").get("status").textValue());
    assertEquals(clock.millis() - 30_000, outcome.get("first").get("acceptedAt").longValue());
    assertTrue(gate.dlq.isEmpty(), "a duplicate is an outcome, not a failure");
  }

  @Test
  void shouldChargeNoQuotaForADuplicate() {
    start();
    // A bucket of two: the repeats of e1 take nothing from it, so e2 is admitted at once.
    send("acme", "e1", "hooks", "");
    send("acme", "e1", "hooks", "");
    send("acme", "e1", "hooks", "");
    send("acme", "e2", "hooks", "");
    assertEquals(List.of("e1", "e2"), readyIds());
    assertEquals(2, gate.outcomes.readRecordsToList().size());
  }

  @Test
  void shouldCallAnIdAgainOnceTheWindowHasPassed() {
    start();
    send("acme", "e1", "hooks", "");
    clock.advance(Duration.ofMinutes(10));
    send("acme", "e1", "hooks", "");
    assertEquals(List.of("e1", "e1"), readyIds());
    assertTrue(gate.outcomes.isEmpty());
  }

  @Test
  void shouldKeepIdsApartByTenantAndLeaveProvidersWithoutAWindowAlone() {
    start();
    send("acme", "e1", "hooks", "");
    send("globex", "e1", "hooks", "");
    send("acme", "p1", "plain", "");
    send("acme", "p1", "plain", "");
    assertEquals(List.of("e1", "e1", "p1", "p1"), readyIds());
    assertTrue(gate.outcomes.isEmpty());
  }

  @Test
  void shouldNameAScheduledFirstAsScheduledAndNotScheduleItsRepeat() throws IOException {
    start();
    send("acme", "later", "hooks", ",\"delay\":\"5m\"");
    send("acme", "later", "hooks", ",\"delay\":\"5m\"");
    TestOutputTopic<byte[], byte[]> twoMinutes = gate.delay(Duration.ofMinutes(2));
    assertEquals(1, twoMinutes.readRecordsToList().size(), "the first waits for its time; the repeat does not");
    assertEquals("scheduled", json(gate.outcomes.readRecord()).get("first").get("status").textValue());
  }

  @Test
  void shouldNotTakeAnEventsOwnReturnToTheGateForARepeat() {
    start();
    // A bucket of two with a 1 s horizon: the fourth event is queued unpaid and comes back on regate.
    for (int i = 0; i < 4; i++) {
      send("acme", "q" + i, "hooks", "");
    }
    assertEquals(2, readyIds().size());
    TestOutputTopic<byte[], byte[]> ones = gate.delay(Duration.ofSeconds(1));
    TestRecord<byte[], byte[]> queued = ones.readRecordsToList().stream()
        .filter(r -> "false".equals(header(r, HeaderNames.PAID))).findFirst().orElseThrow();
    clock.advance(Duration.ofSeconds(2));
    gate.regate.pipeInput(new TestRecord<>(queued.key(), queued.value(), queued.headers()));
    assertEquals(List.of("q3"), readyIds());
    assertTrue(gate.outcomes.isEmpty());
  }

  @Test
  void shouldCallAnOperatorsReplayOfADeadLetterAgainWithinTheWindow() {
    start();
    send("acme", "e1", "hooks", "");
    // The replay writes inbound with the original bytes and its mark (dlq replay).
    TestRecord<byte[], byte[]> replay = new TestRecord<>(bytes("acme"),
        bytes("{\"id\":\"e1\",\"tenant\":\"acme\",\"provider\":\"hooks\",\"payload\":{}}"));
    replay.headers().add(ReplayOf.HEADER, bytes("sluice.dlq-0@7"));
    gate.inbound.pipeInput(replay);
    assertEquals(List.of("e1", "e1"), readyIds());
    assertTrue(gate.outcomes.isEmpty());
  }

  @Test
  void shouldNotRememberAnIdRefusedAtTheGateSoItsCorrectedResendGoes() {
    start();
    send("acme", "e1", "hooks", ",\"delay\":\"20m\""); // beyond maxDelay (10m, the ladder's longest step)
    send("acme", "e1", "hooks", "");
    assertEquals("beyond_max_delay", header(gate.dlq.readRecord(), HeaderNames.REASON));
    assertEquals(List.of("e1"), readyIds());
    assertTrue(gate.outcomes.isEmpty());
  }
}
