package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
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
 * Delivery at a time ({@code deliverAt}, {@code delay}) at the gate, on TopologyTestDriver with the
 * in-memory bucket store and fake clocks: the host's and Redis's, apart. The relay's side (never
 * early on Redis's clock) is RelayIT's; the path on a real broker and redis-server is
 * {@code GateScheduleIT}.
 */
class GateScheduleTest {
  static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s, 2m, 10m, 1h, 6h]
      reservationHorizon: 10s
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 50/s
          maxDelay: 1d
          quotas: { free: { capacity: 2, refill: 1/s } }
        short:
          url: http://localhost:8082/
          rate: 50/s
          quotas: { free: { capacity: 2, refill: 1/s } }
      gate: { leaseTarget: 0ms }
      """;
  private static final Instant START = Instant.parse("2026-11-29T10:00:00Z");

  /** The gate host's clock. */
  private final FakeClock clock = new FakeClock(START);
  /** Redis's, as the relay reads it: here 3 s behind the gate host. */
  private final FakeClock redis = new FakeClock(START.minusSeconds(3));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(redis::micros);
  private GateTestDriver gate;

  private void start() {
    SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, new GateListener() {}, () -> config, TenantLookup.NONE, redis, SeenIds.NONE);
    gate = new GateTestDriver(wiring, "gate-schedule-test");
  }

  @AfterEach
  void close() {
    if (gate != null) {
      gate.close();
    }
  }

  private static String event(String id, String when) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"hooks\"" + when + ",\"payload\":{}}";
  }

  private void send(String json) {
    gate.inbound.pipeInput(new TestRecord<>(bytes("acme"), bytes(json)));
  }

  private TestOutputTopic<byte[], byte[]> delay(Duration step) {
    return gate.delay(step);
  }

  /** What the relay does at the record's not-before: both clocks there, the record on regate. */
  private void relay(TestRecord<byte[], byte[]> waiting) {
    long notBefore = Long.parseLong(header(waiting, HeaderNames.NOT_BEFORE));
    clock.advanceMillis(notBefore - redis.millis());
    redis.setMillis(notBefore);
    gate.regate.pipeInput(new TestRecord<>(waiting.key(), waiting.value(), waiting.headers()));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    return HeaderValues.last(r.headers(), name).orElse(null);
  }

  @Test
  void shouldSendAnEventWithAFutureDeliverAtRoundTheLadderUnpaidToComeBackToTheGateAtItsTime() {
    start();
    Instant at = START.plus(Duration.ofHours(7));
    send(event("e1", ",\"deliverAt\":\"" + at + "\""));

    assertTrue(gate.ready.isEmpty());
    TestRecord<byte[], byte[]> waiting = delay(Duration.ofHours(6)).readRecord();
    assertEquals(Long.toString(at.toEpochMilli()), header(waiting, HeaderNames.NOT_BEFORE));
    assertEquals(gate.topics.regate(), header(waiting, HeaderNames.RETURN_TO), "charged on its return, not now");
    assertEquals("false", header(waiting, HeaderNames.PAID));
    assertEquals("scheduled", header(waiting, HeaderNames.REASON));
    assertEquals(null, header(waiting, HeaderNames.TICKET), "no place in the bucket's line");
  }

  @Test
  void shouldCountADelayFromWhenTheGateFirstSawTheEventOnRedissClock() {
    start();
    send(event("e1", ",\"delay\":\"90s\""));
    TestRecord<byte[], byte[]> waiting = delay(Duration.ofSeconds(30)).readRecord();
    assertEquals(Long.toString(redis.millis() + 90_000), header(waiting, HeaderNames.NOT_BEFORE));
  }

  @Test
  void shouldJudgeDeliverAtOnRedissClockNotTheGateHosts() {
    start();
    // Due by the gate host's clock (3 s ahead of Redis's), not by Redis's: it waits.
    send(event("e1", ",\"deliverAt\":\"" + START.minusSeconds(1) + "\""));
    assertTrue(gate.ready.isEmpty(), "never called before its time on the relay's clock");
    assertEquals(Long.toString(START.minusSeconds(1).toEpochMilli()),
        header(delay(Duration.ofSeconds(1)).readRecord(), HeaderNames.NOT_BEFORE));
    // Due by both: on to the quota, admitted at once.
    send(event("e2", ",\"deliverAt\":\"" + START.minusSeconds(3) + "\""));
    assertEquals(1, gate.ready.readRecordsToList().size());
  }

  @Test
  void shouldChargeTheQuotaWhenTheEventFallsDueNotWhenItArrives() {
    start();
    Instant at = START.plus(Duration.ofMinutes(10));
    // Five scheduled events with a bucket of two: none is charged now.
    for (int i = 0; i < 5; i++) {
      send(event("s" + i, ",\"deliverAt\":\"" + at + "\""));
    }
    List<TestRecord<byte[], byte[]>> waiting = delay(Duration.ofMinutes(10)).readRecordsToList();
    assertEquals(5, waiting.size());
    send(event("now1", ""));
    send(event("now2", ""));
    assertEquals(2, gate.ready.readRecordsToList().size(), "the bucket is whole for what is due now");

    // At their time the bucket (refilled) holds two: two go, the other three wait their turn.
    for (TestRecord<byte[], byte[]> w : waiting) {
      relay(w);
    }
    assertEquals(2, gate.ready.readRecordsToList().size());
    List<TestRecord<byte[], byte[]>> rateLimited = delay(Duration.ofSeconds(1)).readRecordsToList();
    assertEquals(3, rateLimited.size());
    rateLimited.forEach(r -> assertEquals("rate_limited", header(r, HeaderNames.REASON)));
  }

  @Test
  void shouldNotScheduleADelayAgainWhenItComesBackOnRegate() {
    start();
    send(event("e1", ",\"delay\":\"2h\""));
    relay(delay(Duration.ofHours(1)).readRecord());
    // Back after 1 h of its 2 h? No: the gate placed it for its not-before; the relay let it out then.
    assertEquals(1, gate.ready.readRecordsToList().size(), "its delay counts from its first sight, once");
    assertTrue(delay(Duration.ofHours(1)).isEmpty());
  }

  @Test
  void shouldDeadLetterATimeBeyondTheProvidersMaxDelayNamingTheField() {
    start();
    send(event("far", ",\"deliverAt\":\"" + START.plus(Duration.ofDays(2)) + "\""));
    send(event("short", ",\"delay\":\"7h\"").replace("\"provider\":\"hooks\"", "\"provider\":\"short\""));
    List<TestRecord<byte[], byte[]>> dead = gate.dlq.readRecordsToList();
    assertEquals(2, dead.size());
    assertEquals("beyond_max_delay", header(dead.get(0), HeaderNames.REASON));
    assertEquals("field 'deliverAt' is 2026-12-01T10:00:00Z, 172803s ahead, beyond the maxDelay 1d of "
        + "provider 'hooks'", header(dead.get(0), HeaderNames.DETAIL));
    assertEquals("field 'delay' is 7h, 7h ahead, beyond the maxDelay 6h of provider 'short'",
        header(dead.get(1), HeaderNames.DETAIL), "without maxDelay: the ladder's longest step");
  }

  @Test
  void shouldDeadLetterMalformedTimesAndATimeAfterTheDeadlineAsTheEventsOwnFault() {
    start();
    send(event("bad", ",\"delay\":\"tomorrow\""));
    send(event("both", ",\"delay\":\"1m\",\"deliverAt\":\"" + START + "\""));
    send(event("late", ",\"delay\":\"1h\",\"deadline\":\"" + START.plus(Duration.ofMinutes(30)) + "\""));
    List<TestRecord<byte[], byte[]>> dead = gate.dlq.readRecordsToList();
    assertEquals(3, dead.size());
    dead.forEach(d -> assertEquals("invalid", header(d, HeaderNames.REASON)));
    assertTrue(header(dead.get(0), HeaderNames.DETAIL).startsWith("field 'delay' must be"));
    assertTrue(header(dead.get(1), HeaderNames.DETAIL).startsWith("fields 'deliverAt' and 'delay'"));
    assertTrue(header(dead.get(2), HeaderNames.DETAIL).startsWith(
        "field 'delay' is 1h, after the event's deadline 2026-11-29T10:30:00Z"), header(dead.get(2), HeaderNames.DETAIL));
  }
}
