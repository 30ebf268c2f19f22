package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.FakeClock;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Routing of the gate topology, on TopologyTestDriver with the in-memory bucket store and a fake
 * clock. The same paths run against a real broker and a real Redis in {@link io.sluice.gate.it.GateIT}.
 */
class GateTopologyTest {
  static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s]
      reservationHorizon: 10s
      tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          maxCost: 10
          onRedisDown: fail_open
          quotas:
            enterprise: { capacity: 10, refill: 10/s }
            pro: { capacity: 4, refill: 2/s }
            free: { capacity: 2, refill: 1/s }
        closed-api:
          url: http://localhost:8082/
          rate: 10/s
          onRedisDown: fail_closed
          quotas: { enterprise: { capacity: 5, refill: 5/s }, pro: { capacity: 5, refill: 5/s }, free: { capacity: 5, refill: 5/s } }
        local-api:
          url: http://localhost:8083/
          rate: 10/s
          onRedisDown: local
          quotas: { enterprise: { capacity: 2, refill: 1/s }, pro: { capacity: 2, refill: 1/s }, free: { capacity: 2, refill: 1/s } }
        shadow-api:
          url: http://localhost:8084/
          rate: 10/s
          shadow: true
          quotas: { enterprise: { capacity: 1, refill: 1/s }, pro: { capacity: 1, refill: 1/s }, free: { capacity: 1, refill: 1/s } }
      tenants:
        acme: { tier: enterprise }
        globex: { tier: pro }
        watched: { tier: pro, shadow: true }
      gate: { maxPayloadBytes: 512, leaseTarget: 0ms }
      """;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-21T10:00:00Z"));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestInputTopic<byte[], byte[]> regate;
  private TestOutputTopic<byte[], byte[]> ready;
  private TestOutputTopic<byte[], byte[]> dlq;
  private Topics topics;

  /** Would-defer waits reported in shadow mode, in milliseconds. */
  private final java.util.List<Long> wouldDeferWaits = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final GateListener shadowCounts = new GateListener() {
    @Override
    public void shadowWouldDefer(String provider, String tier, long waitMillis) {
      wouldDeferWaits.add(waitMillis);
    }
  };

  private void start(String yaml) {
    SluiceConfig config = ConfigLoader.parse(yaml, Map.of());
    topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, shadowCounts);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    regate = driver.createInputTopic(topics.regate(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  private void send(String tenant, String json) {
    inbound.pipeInput(new TestRecord<>(bytes(tenant), bytes(json)));
  }

  private static String event(String id, String tenant, String provider, int cost) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
        + "\",\"cost\":" + cost + ",\"payload\":{\"n\":1}}";
  }

  private TestOutputTopic<byte[], byte[]> delay(Duration step) {
    return driver.createOutputTopic(topics.delay(step), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    return HeaderValues.last(r.headers(), name).orElse(null);
  }

  @Test
  void shouldAdmitAnEventWithinQuotaToReadyWithItsOriginalBytesAndTier() {
    start(CONFIG);
    String json = event("e1", "acme", "payments-api", 1);
    send("acme", json);
    TestRecord<byte[], byte[]> out = ready.readRecord();
    assertArrayEquals(bytes(json), out.value(), "payload bytes are never rewritten");
    assertArrayEquals(bytes("acme"), out.key());
    assertEquals("enterprise", header(out, HeaderNames.TIER));
    assertEquals(clock.millis(), out.timestamp(), "stamped with the admission time");
    assertTrue(dlq.isEmpty());
  }

  @Test
  @DisplayName("an admitted high event goes to ready.high, never behind its tenant's lows on ready (issue 36)")
  void shouldAdmitAHighEventToTheHighReadyTopic() {
    start(CONFIG);
    TestOutputTopic<byte[], byte[]> readyHigh = driver.createOutputTopic(topics.readyHigh(),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    send("acme", prioritised("low1", "low"));
    send("acme", prioritised("high1", "high"));
    send("acme", prioritised("normal1", "normal"));
    send("acme", event("plain", "acme", "payments-api", 1));

    TestRecord<byte[], byte[]> high = readyHigh.readRecord();
    assertArrayEquals(bytes(prioritised("high1", "high")), high.value());
    assertEquals("high", header(high, HeaderNames.PRIORITY), "the relay reads the class here");
    assertTrue(readyHigh.isEmpty(), "only the high one");
    List<TestRecord<byte[], byte[]>> rest = ready.readRecordsToList();
    assertEquals(List.of("low1", "normal1", "plain"), rest.stream().map(r -> idOf(r.value())).toList());
    assertEquals("low", header(rest.get(0), HeaderNames.PRIORITY));
    assertEquals(null, header(rest.get(1), HeaderNames.PRIORITY), "normal, the default, writes none");
  }

  @Test
  @DisplayName("a high event the quota defers returns to ready carrying its class, for the relay to send to ready.high")
  void shouldCarryTheClassOfADeferredHighEvent() {
    start(CONFIG);
    // free tier: capacity 2, refill 1/s: the third waits a second, paid.
    for (int i = 0; i < 3; i++) {
      send("t1", "{\"id\":\"h" + i + "\",\"tenant\":\"t1\",\"provider\":\"payments-api\","
          + "\"priority\":\"high\",\"payload\":{}}");
    }
    TestRecord<byte[], byte[]> deferred = delay(Duration.ofSeconds(1)).readRecord();
    assertEquals(topics.ready(), header(deferred, HeaderNames.RETURN_TO),
        "ready, which a relay not upgraded yet also accepts");
    assertEquals("high", header(deferred, HeaderNames.PRIORITY));
  }

  private static String prioritised(String id, String priority) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"payments-api\","
        + "\"priority\":\"" + priority + "\",\"payload\":{}}";
  }

  private static String idOf(byte[] json) {
    String s = new String(json, StandardCharsets.UTF_8);
    int at = s.indexOf("\"id\":\"") + 6;
    return s.substring(at, s.indexOf('"', at));
  }

  @Test
  void shouldTakeTheTierFromConfigurationAndTheDefaultTierForUnlistedTenants() {
    start(CONFIG);
    send("globex", event("e1", "globex", "payments-api", 1));
    send("someone", event("e2", "someone", "payments-api", 1));
    assertEquals("pro", header(ready.readRecord(), HeaderNames.TIER));
    assertEquals("free", header(ready.readRecord(), HeaderNames.TIER));
  }

  @Test
  void shouldReserveASlotAndSendTheEventPaidToTheLadderWhenTheBucketIsEmpty() {
    start(CONFIG);
    // free tier: capacity 2, refill 1/s. The third event's unit is due in one second.
    for (int i = 0; i < 3; i++) {
      send("t1", event("e" + i, "t1", "payments-api", 1));
    }
    assertEquals(2, ready.readRecordsToList().size());
    TestRecord<byte[], byte[]> deferred = delay(Duration.ofSeconds(1)).readRecord();
    assertEquals(Long.toString(clock.millis() + 1000), header(deferred, HeaderNames.NOT_BEFORE));
    assertEquals(topics.ready(), header(deferred, HeaderNames.RETURN_TO));
    assertEquals("true", header(deferred, HeaderNames.PAID));
    assertEquals("rate_limited", header(deferred, HeaderNames.REASON));
  }

  @Test
  void shouldPlaceAWaitInTheLadderStepThatFitsIt() {
    start(CONFIG);
    // free tier: 2 now, then one per second; the 9th event waits 7 s: the 5 s step.
    for (int i = 0; i < 9; i++) {
      send("t2", event("e" + i, "t2", "payments-api", 1));
    }
    assertEquals(2, ready.readRecordsToList().size());
    assertEquals(4, delay(Duration.ofSeconds(1)).readRecordsToList().size(), "waits of 1..4 s");
    var fives = delay(Duration.ofSeconds(5)).readRecordsToList();
    assertEquals(3, fives.size(), "waits of 5..7 s");
    assertEquals(Long.toString(clock.millis() + 7000), header(fives.get(2), HeaderNames.NOT_BEFORE));
  }

  @Test
  void shouldQueueAnEventBeyondTheHorizonUnpaidWithATicketBackToTheGate() {
    start(CONFIG);
    // free tier, horizon 10 s: 2 now + 10 reserved; the 13th is not charged and gets a ticket.
    for (int i = 0; i < 13; i++) {
      send("t3", event("e" + i, "t3", "payments-api", 1));
    }
    var ones = delay(Duration.ofSeconds(1)).readRecordsToList();
    TestRecord<byte[], byte[]> queued = ones.get(ones.size() - 1);
    assertEquals("false", header(queued, HeaderNames.PAID));
    assertEquals(topics.regate(), header(queued, HeaderNames.RETURN_TO), "Sluice's own return topic, not inbound");
    // Its turn: when one unit fits the horizon again, 11 s - 10 s = 1 s from now.
    assertEquals(Long.toString(clock.millis() + 1000), header(queued, HeaderNames.TICKET));
    assertEquals(header(queued, HeaderNames.TICKET), header(queued, HeaderNames.NOT_BEFORE));
  }

  @Test
  void shouldChargeATicketHolderWhenItComesBack() {
    start(CONFIG);
    for (int i = 0; i < 13; i++) {
      send("t4", event("e" + i, "t4", "payments-api", 1));
    }
    var ones = delay(Duration.ofSeconds(1)).readRecordsToList();
    TestRecord<byte[], byte[]> queued = ones.get(ones.size() - 1);
    assertEquals("false", header(queued, HeaderNames.PAID));
    clock.advance(Duration.ofSeconds(1));
    regate.pipeInput(new TestRecord<>(queued.key(), queued.value(), queued.headers()));
    var tens = delay(Duration.ofSeconds(5)).readRecordsToList();
    TestRecord<byte[], byte[]> paid = tens.get(tens.size() - 1);
    assertEquals("true", header(paid, HeaderNames.PAID), "reserved on its return");
    assertEquals(null, header(paid, HeaderNames.TICKET), "the ticket is used up");
    assertEquals(Long.toString(clock.millis() + 10_000), header(paid, HeaderNames.NOT_BEFORE));
  }

  @Test
  void shouldDeadLetterBadInputWithAReasonAndKeepGoing() {
    start(CONFIG);
    send("x", "{not json");
    send("acme", event("e1", "acme", "nope-api", 1));
    send("acme", event("e2", "acme", "payments-api", 11));
    send("acme", "{\"id\":\"e3\",\"tenant\":\"acme\",\"provider\":\"payments-api\",\"payload\":\"" + "x".repeat(600) + "\"}");
    send("acme", "{\"id\":\"e4\",\"tenant\":\"acme\",\"provider\":\"payments-api\",\"deadline\":\"2026-11-21T09:59:59Z\"}");
    send("acme", event("ok", "acme", "payments-api", 1));

    var dead = dlq.readRecordsToList();
    assertEquals(java.util.List.of("invalid", "unknown_provider", "invalid", "invalid", "expired"),
        dead.stream().map(r -> header(r, HeaderNames.REASON)).toList());
    assertArrayEquals(bytes("{not json"), dead.get(0).value(), "the original bytes");
    assertTrue(header(dead.get(0), HeaderNames.DETAIL).length() > 5);
    assertTrue(header(dead.get(0), HeaderNames.SOURCE).startsWith(topics.inbound() + "-0@"));
    assertEquals(1, ready.readRecordsToList().size(), "good events keep flowing");
  }

  @Test
  void shouldDeadLetterAnUnknownTenantWhenThereIsNoDefaultTier() {
    start(CONFIG.replace("defaultTier: free\n", ""));
    send("stranger", event("e1", "stranger", "payments-api", 1));
    assertEquals("unknown_tenant", header(dlq.readRecord(), HeaderNames.REASON));
  }

  @Test
  void shouldLetEverythingThroughInShadowModeButStillDecide() {
    start(CONFIG);
    for (int i = 0; i < 5; i++) {
      send("acme", event("e" + i, "acme", "shadow-api", 1));
    }
    assertEquals(5, ready.readRecordsToList().size());
    assertEquals(5, store.calls(), "every event was still decided by the bucket");
  }

  @Test
  void shouldSendAShadowTenantsOverQuotaEventsToReadyAndCountThemAsWouldDefer() {
    // watched: pro at payments-api, capacity 4 at 2/s, horizon 10 s; shadow: true on the tenant
    // only (the provider enforces everyone else).
    start(CONFIG);
    for (int i = 0; i < 30; i++) {
      send("watched", event("w" + i, "watched", "payments-api", 1));
    }
    assertEquals(30, ready.readRecordsToList().size(), "nothing is held back");
    assertTrue(delay(Duration.ofSeconds(1)).isEmpty() && delay(Duration.ofSeconds(5)).isEmpty()
        && delay(Duration.ofSeconds(30)).isEmpty(), "nothing went to the ladder");
    assertEquals(26, wouldDeferWaits.size(), "4 fitted the bucket and were charged; 26 would have been deferred");
    assertTrue(wouldDeferWaits.stream().allMatch(w -> w > 0 && w <= 500),
        "each with the wait it alone would have had (one unit at 2/s): " + wouldDeferWaits);

    // globex, same tier, not in shadow mode: enforced as before.
    for (int i = 0; i < 6; i++) {
      send("globex", event("g" + i, "globex", "payments-api", 1));
    }
    assertEquals(4, ready.readRecordsToList().size(), "globex is enforced");
    assertEquals(26, wouldDeferWaits.size());

    // Shadow mode switched off for watched (a restart with the same Redis): the bucket owes
    // nothing to the shadow traffic. Half a second refills one unit, and it goes at once (had
    // the 26 been reserved or queued, it would wait 13 s).
    driver.close();
    clock.advance(Duration.ofMillis(500));
    start(CONFIG.replace("watched: { tier: pro, shadow: true }", "watched: { tier: pro }"));
    send("watched", event("enforced", "watched", "payments-api", 1));
    assertEquals(1, ready.readRecordsToList().size(), "admitted at once after the shadow burst");
    send("watched", event("enforced2", "watched", "payments-api", 1));
    assertTrue(ready.isEmpty(), "and enforced from there: the next one waits");
    assertEquals(26, wouldDeferWaits.size());
  }

  @Test
  void shouldApplyEachProvidersPolicyWhenRedisIsDown() {
    start(CONFIG);
    send("acme", event("seen", "acme", "local-api", 1)); // Redis answers: level 1 of 2 after it
    assertEquals(1, ready.readRecordsToList().size());
    store.failing(true);
    send("acme", event("open", "acme", "payments-api", 1));
    assertEquals(1, ready.readRecordsToList().size(), "fail_open lets it through");

    clock.advance(Duration.ofSeconds(2)); // past the circuit's backoff: the next call probes
    send("acme", event("closed", "acme", "closed-api", 1));
    TestRecord<byte[], byte[]> held = delay(Duration.ofSeconds(1)).readRecord();
    assertEquals("redis_unavailable", header(held, HeaderNames.REASON));
    assertEquals(topics.regate(), header(held, HeaderNames.RETURN_TO), "gated again later");

    // local: capacity 2 at this instance's share (1.0), from Redis's last answer (level 1,
    // refilled to 2 in the 2 s since): two now, the third reserved locally.
    for (int i = 0; i < 3; i++) {
      send("acme", event("local" + i, "acme", "local-api", 1));
    }
    assertEquals(2, ready.readRecordsToList().size());
    assertEquals("true", header(delay(Duration.ofSeconds(1)).readRecord(), HeaderNames.PAID));

    // A tenant this gate never heard of from Redis: it may be deep in reservations there, so its
    // local bucket starts a full reach in debt and sells nothing at once.
    send("globex", event("unknown", "globex", "local-api", 1));
    assertTrue(ready.isEmpty(), "a bucket started full would admit it at once");
    TestRecord<byte[], byte[]> unknown = delay(Duration.ofSeconds(1)).readRecord();
    assertEquals("redis_unavailable", header(unknown, HeaderNames.REASON));
    assertEquals(topics.regate(), header(unknown, HeaderNames.RETURN_TO), "gated again later");
  }

  @Test
  void shouldNotLetTheLocalBucketSellAgainTheTimeRedisReservedBeforeItWentDown() {
    start(CONFIG);
    long t0 = clock.millis();
    // local-api: capacity 2 at 1/s. Five events: two go now, three are paid reservations due at
    // t0 + 1, 2 and 3 s, which the relay releases then whether Redis is up or not.
    for (int i = 0; i < 5; i++) {
      send("acme", event("before" + i, "acme", "local-api", 1));
    }
    assertEquals(2, ready.readRecordsToList().size());

    store.failing(true);
    send("acme", event("during", "acme", "local-api", 1));
    assertTrue(ready.isEmpty(), "a bucket started full would admit it at once: a fourth unit in the first second");
    TestRecord<byte[], byte[]> reserved = delay(Duration.ofSeconds(1)).readRecordsToList().stream()
        .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains("\"during\"")).findFirst().orElseThrow();
    assertEquals("true", header(reserved, HeaderNames.PAID));
    assertTrue(Long.parseLong(header(reserved, HeaderNames.NOT_BEFORE)) >= t0 + 4_000,
        "its turn comes after the three units Redis sold: " + (Long.parseLong(header(reserved, HeaderNames.NOT_BEFORE)) - t0) + " ms");
  }

  @Test
  @DisplayName("local fallback: like Redis, the local bucket reserves only within the horizon; an "
      + "event beyond it is held back as under fail_closed, not charged")
  void shouldNotLetTheLocalBucketReserveBeyondTheHorizon() {
    start(CONFIG);
    long t0 = clock.millis();
    send("acme", event("seen", "acme", "local-api", 1)); // Redis answers: level 1 of 2 after it
    assertEquals(1, ready.readRecordsToList().size());
    store.failing(true);
    // local-api: capacity 2 at 1/s, horizon 10 s, from Redis's level 1: 1 now, 10 reserved (due
    // t0 + 1..10 s), and the twelfth would be due 11 s ahead. Sold locally, that time is owed to Redis in memory only:
    // a gate restart loses it, and a Redis that lost its data rebuilds the bucket as one horizon
    // of reservations at the loss, so it could be sold again.
    for (int i = 0; i < 12; i++) {
      send("acme", event("local" + i, "acme", "local-api", 1));
    }
    assertEquals(1, ready.readRecordsToList().size());
    List<TestRecord<byte[], byte[]>> deferred = new java.util.ArrayList<>();
    for (Duration step : List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30))) {
      deferred.addAll(delay(step).readRecordsToList());
    }
    assertEquals(11, deferred.size());
    for (TestRecord<byte[], byte[]> r : deferred) {
      boolean last = new String(r.value(), StandardCharsets.UTF_8).contains("\"local11\"");
      if (last) {
        assertEquals("redis_unavailable", header(r, HeaderNames.REASON), "held back, not reserved");
        assertEquals(topics.regate(), header(r, HeaderNames.RETURN_TO), "gated again later");
        assertEquals("false", header(r, HeaderNames.PAID));
      } else {
        assertEquals("true", header(r, HeaderNames.PAID));
        assertTrue(Long.parseLong(header(r, HeaderNames.NOT_BEFORE)) <= t0 + 10_000,
            "reserved within the horizon: " + (Long.parseLong(header(r, HeaderNames.NOT_BEFORE)) - t0) + " ms");
      }
    }
  }

  @Test
  @DisplayName("an inbound event keyed by anything but its tenant (none, another tenant) is "
      + "dead-lettered saying so; its tenant's correctly keyed events go on in order")
  void shouldDeadLetterAnEventNotKeyedByItsTenant() {
    start(CONFIG);
    inbound.pipeInput(new TestRecord<>(null, bytes(event("unkeyed", "acme", "payments-api", 1))));
    send("globex", event("other-key", "acme", "payments-api", 1));
    send("acme", event("keyed", "acme", "payments-api", 1));
    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertEquals(2, dead.size());
    for (TestRecord<byte[], byte[]> d : dead) {
      assertEquals("invalid", header(d, HeaderNames.REASON));
      assertTrue(header(d, HeaderNames.DETAIL).contains("key must be the tenant id 'acme'"),
          header(d, HeaderNames.DETAIL));
    }
    assertEquals(List.of("keyed"), ready.readRecordsToList().stream()
        .map(r -> new String(r.value(), StandardCharsets.UTF_8).replaceAll(".*\"id\":\"([^\"]+)\".*", "$1"))
        .toList());
  }

  @Test
  @DisplayName("an unknown tenant is dead-lettered as such, whatever its key")
  void shouldTellAnUnknownTenantBeforeItsKey() {
    start(CONFIG.replace("defaultTier: free\n", ""));
    inbound.pipeInput(new TestRecord<>(null, bytes(event("nobody", "nobody", "payments-api", 1))));
    assertEquals("unknown_tenant", header(dlq.readRecord(), HeaderNames.REASON));
  }

  @Test
  @DisplayName("local fallback: units a lease still holds against the bucket's cap are not sold "
      + "again by the local bucket")
  void shouldNotLetTheLocalBucketSellUnitsALeaseHolds() {
    // capacity 6 at 6/s; the first event takes a lease of 5 more units (demand 1/s over a 5 s
    // lease target), which Redis holds against the cap for 15 s.
    start(CONFIG.replace("gate: { maxPayloadBytes: 512, leaseTarget: 0ms }",
        "gate: { maxPayloadBytes: 512, leaseTarget: 5s, maxLease: 5 }")
        .replace("enterprise: { capacity: 2, refill: 1/s }, pro: { capacity: 2, refill: 1/s }",
            "enterprise: { capacity: 6, refill: 6/s }, pro: { capacity: 2, refill: 1/s }"));
    send("acme", event("first", "acme", "local-api", 1));
    assertEquals(1, ready.readRecordsToList().size());
    store.failing(true);
    // A second later Redis's bucket would have refilled to capacity minus the lease: 1 unit.
    clock.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 11; i++) {
      send("acme", event("burst" + i, "acme", "local-api", 1));
    }
    assertEquals(6, ready.readRecordsToList().size(),
        "the lease's 5 and the one unit Redis would have: a capacity of 6 at one instant, not 11");
  }

  @Test
  void shouldChargeRedisWhatTheLocalBucketAdmittedOnceRedisAnswersAgain() {
    start(CONFIG);
    send("acme", event("redis", "acme", "local-api", 1));
    store.failing(true);
    send("acme", event("local", "acme", "local-api", 1));
    assertEquals(2, ready.readRecordsToList().size(), "the bucket's two units: one in Redis, one locally");

    // 1.1 s on (past the circuit's backoff), Redis answers again. Its bucket refilled to 2 units
    // unseen; one of them was spent locally, so one event goes now and the next waits. Admitting
    // both would put 4 units in 1.1 s where capacity + rate*T allows 3.1.
    clock.advance(Duration.ofMillis(1_100));
    store.failing(false);
    send("acme", event("after1", "acme", "local-api", 1));
    send("acme", event("after2", "acme", "local-api", 1));
    assertEquals(1, ready.readRecordsToList().size());
    assertEquals("true", header(delay(Duration.ofSeconds(1)).readRecord(), HeaderNames.PAID));
  }

  @Test
  void shouldCarryTheQuotasEtaOnEveryDecision() {
    start(CONFIG);
    // free tier: capacity 2, refill 1/s, horizon 10 s: 2 now, 10 reserved, the 13th queued.
    for (int i = 0; i < 13; i++) {
      send("eta", event("e" + i, "eta", "payments-api", 1));
    }
    for (TestRecord<byte[], byte[]> admitted : ready.readRecordsToList()) {
      assertEquals(Long.toString(clock.millis()), header(admitted, HeaderNames.ETA));
    }
    var ones = delay(Duration.ofSeconds(1)).readRecordsToList();
    assertEquals(Long.toString(clock.millis() + 1000), header(ones.get(0), HeaderNames.ETA),
        "reserved: its not-before");
    TestRecord<byte[], byte[]> queued = ones.get(ones.size() - 1);
    assertEquals(Long.toString(clock.millis() + 11_000), header(queued, HeaderNames.ETA),
        "queued: its ticket's turn, then charged a horizon ahead");

    // The queued one back with its ticket: charged, and its ETA written anew, once.
    clock.advance(Duration.ofSeconds(1));
    regate.pipeInput(new TestRecord<>(queued.key(), queued.value(), queued.headers()));
    var fives = delay(Duration.ofSeconds(5)).readRecordsToList();
    TestRecord<byte[], byte[]> paid = fives.get(fives.size() - 1);
    assertEquals(List.of(Long.toString(clock.millis() + 10_000)), values(paid, HeaderNames.ETA));
  }

  @Test
  void shouldDeadLetterAnEventWhoseDeadlineItsQuotaCannotMeetAndKeepAFeasibleOne() {
    start(CONFIG);
    send("late", event("e0", "late", "payments-api", 1));
    send("late", event("e1", "late", "payments-api", 1));
    // The third's unit is due in 1 s: a deadline in 0.5 s cannot be met, one in 5 s can.
    String in500ms = clock.instant().plusMillis(500).toString();
    String in5s = clock.instant().plusSeconds(5).toString();
    send("late", "{\"id\":\"doomed\",\"tenant\":\"late\",\"provider\":\"payments-api\","
        + "\"deadline\":\"" + in500ms + "\",\"payload\":{}}");
    send("late", "{\"id\":\"feasible\",\"tenant\":\"late\",\"provider\":\"payments-api\","
        + "\"deadline\":\"" + in5s + "\",\"payload\":{}}");

    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    assertEquals("deadline_unreachable", header(dead, HeaderNames.REASON));
    assertEquals("doomed", header(dead, HeaderNames.EVENT_ID));
    assertTrue(header(dead, HeaderNames.DETAIL).contains("after its deadline " + in500ms),
        header(dead, HeaderNames.DETAIL));
    assertTrue(dlq.isEmpty());
    var ones = delay(Duration.ofSeconds(1)).readRecordsToList();
    assertEquals(1, ones.size(), "the feasible one waits its turn");
    assertTrue(new String(ones.get(0).value(), StandardCharsets.UTF_8).contains("feasible"));
    assertEquals(2, ready.readRecordsToList().size());
  }

  @Test
  void shouldNeverFindADeadlineUnreachableInShadowMode() {
    start(CONFIG);
    String in100ms = clock.instant().plusMillis(100).toString();
    for (int i = 0; i < 6; i++) {
      send("watched", "{\"id\":\"w" + i + "\",\"tenant\":\"watched\",\"provider\":\"payments-api\","
          + "\"deadline\":\"" + in100ms + "\",\"payload\":{}}");
    }
    assertEquals(6, ready.readRecordsToList().size(), "shadow: admitted (2 over its quota of 4), due now");
    assertTrue(dlq.isEmpty());
  }

  @Test
  void shouldWriteAReceiptOfEachDecisionWhenAskedAndNoneOtherwise() throws Exception {
    start(CONFIG.replace("leaseTarget: 0ms }", "leaseTarget: 0ms, receipts: true }"));
    TestOutputTopic<byte[], byte[]> receipts = driver.createOutputTopic(topics.receipts(),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    // free tier: 2 admitted, 10 reserved, the 13th queued; then one whose deadline is too near.
    for (int i = 0; i < 13; i++) {
      send("rc", event("e" + i, "rc", "payments-api", 1));
    }
    send("rc", "{\"id\":\"doomed\",\"tenant\":\"rc\",\"provider\":\"payments-api\","
        + "\"deadline\":\"" + clock.instant().plusSeconds(2) + "\",\"payload\":{}}");

    List<TestRecord<byte[], byte[]>> written = receipts.readRecordsToList();
    assertEquals(14, written.size());
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    List<String> decisions = new java.util.ArrayList<>();
    for (TestRecord<byte[], byte[]> r : written) {
      assertArrayEquals(bytes("rc"), r.key(), "keyed by tenant");
      decisions.add(json.readTree(r.value()).get("decision").asText());
    }
    assertEquals(List.of("admitted", "admitted"), decisions.subList(0, 2));
    assertEquals(java.util.Collections.nCopies(10, "reserved"), decisions.subList(2, 12));
    assertEquals(List.of("queued", "dead"), decisions.subList(12, 14));
    assertEquals(json.readTree("{\"id\":\"e12\",\"tenant\":\"rc\",\"provider\":"
        + "\"payments-api\",\"decision\":\"queued\",\"etaMillis\":" + (clock.millis() + 11_000)
        + ",\"reason\":\"rate_limited\"}"), json.readTree(written.get(12).value()));
    var admitted = json.readTree(written.get(0).value());
    assertEquals(clock.millis(), admitted.get("etaMillis").asLong());
    assertTrue(admitted.get("reason").isNull());
    var dead = json.readTree(written.get(13).value());
    assertEquals("deadline_unreachable", dead.get("reason").asText());
    assertEquals(header(delay(Duration.ofSeconds(1)).readRecordsToList().get(0), HeaderNames.ETA),
        json.readTree(written.get(2).value()).get("etaMillis").asText(), "the ETA it carries");
  }

  @Test
  void shouldHaveNoReceiptsSinkUnlessAsked() {
    start(CONFIG);
    assertTrue(!GateTopology.build(new GateWiring(ConfigLoader.parse(CONFIG, Map.of()), store,
        new RedisCircuit(1000, 1000, s -> {}), () -> 1.0, clock, clock::nanos, shadowCounts))
        .describe().toString().contains(topics.receipts()));
  }

  private static List<String> values(TestRecord<byte[], byte[]> r, String name) {
    List<String> out = new java.util.ArrayList<>();
    r.headers().headers(name).forEach(h -> out.add(new String(h.value(), StandardCharsets.UTF_8)));
    return out;
  }
}
