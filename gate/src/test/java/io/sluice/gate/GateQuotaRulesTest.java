package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.FakeClock;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import io.sluice.gate.limiter.RuleKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gate with several quota rules per event, on TopologyTestDriver with the in-memory store (the
 * script's own behaviour is pinned on a real Redis in QuotaRulesScriptIT).
 */
class GateQuotaRulesTest {
  static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s]
      reservationHorizon: 10s
      tiers:
        pro: { weight: 4, budgets: { b-api: { capacity: 3, refill: 1/s } } }
        free: { weight: 1 }
      defaultTier: free
      providers:
        a-api:
          url: http://localhost:8081/
          rate: 50/s
          quotas: { pro: { capacity: 10, refill: 10/s }, free: { capacity: 10, refill: 10/s } }
        b-api:
          url: http://localhost:8082/
          rate: 50/s
          quotas: { pro: { capacity: 10, refill: 10/s }, free: { capacity: 10, refill: 10/s } }
      tenants:
        acme:
          tier: free
          overall: { capacity: 4, refill: 1/s }
        refunder:
          tier: free
          rules:
            refunds: { path: refunds, capacity: 2, refill: 1/m }
        pro1: { tier: pro }
        pro2: { tier: pro }
        watched:
          tier: free
          shadow: true
          overall: { capacity: 2, refill: 1/s }
        plain: { tier: free }
        bulkrefunder:
          tier: free
          rules:
            refunds: { path: refunds, capacity: 20, refill: 1/m }
        bscoped:
          tier: free
          rules:
            b-refunds: { provider: b-api, path: refunds, capacity: 2, refill: 1/m }
      gate: { leaseTarget: 0ms }
      """;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-23T10:00:00Z"));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private final List<Long> wouldDefer = new CopyOnWriteArrayList<>();
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestOutputTopic<byte[], byte[]> ready;
  private TestOutputTopic<byte[], byte[]> regate1s;
  private TestOutputTopic<byte[], byte[]> regate30s;

  private void start() {
    SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateListener listener = new GateListener() {
      @Override
      public void shadowWouldDefer(String provider, String tier, long waitMillis) {
        wouldDefer.add(waitMillis);
      }
    };
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, listener);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-rules-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    regate1s = driver.createOutputTopic(topics.delay(Duration.ofSeconds(1)), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    regate30s = driver.createOutputTopic(topics.delay(Duration.ofSeconds(30)), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  private void send(String tenant, String provider, String path, int n) {
    for (int i = 0; i < n; i++) {
      String json = "{\"id\":\"" + tenant + provider + System.nanoTime() + "\",\"tenant\":\"" + tenant
          + "\",\"provider\":\"" + provider + "\"" + (path == null ? "" : ",\"path\":\"" + path + "\"") + "}";
      inbound.pipeInput(new TestRecord<>(tenant.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void shouldHoldATenantToItsOverallBudgetAcrossProviders() {
    start();
    send("acme", "a-api", null, 2);
    send("acme", "b-api", null, 3);
    assertEquals(4, ready.readRecordsToList().size(), "the overall budget of 4 across both providers");
    List<TestRecord<byte[], byte[]>> deferred = regate1s.readRecordsToList();
    assertEquals(1, deferred.size());
    TestRecord<byte[], byte[]> d = deferred.get(0);
    assertEquals("false", HeaderValues.last(d.headers(), HeaderNames.PAID).orElseThrow(), "charged nothing");
    // Back when every rule can pay: the overall bucket refills one unit in 1 s.
    assertEquals(clock.millis() + 1000, Long.parseLong(HeaderValues.last(d.headers(), HeaderNames.NOT_BEFORE).orElseThrow()));
    assertEquals(8, store.ruleLevel(RuleKeys.provider("acme", "b-api")), 1e-9,
        "b-api's bucket was charged for its two admitted events only");
  }

  @Test
  void shouldChargeAPerAttributeRuleOnlyToTheEventsItMatches() {
    start();
    send("refunder", "a-api", "refunds/1", 3);
    send("refunder", "a-api", "charges/1", 3);
    assertEquals(5, ready.readRecordsToList().size(), "2 refunds and 3 charges");
    assertEquals(List.of(), regate1s.readRecordsToList());
    assertEquals(1, regate30s.readRecordsToList().size(), "the third refund waits a minute: the 30 s step");
    assertEquals(0, store.ruleLevel(RuleKeys.rule("refunder", "refunds")), 1e-9);
  }

  /**
   * Issue 34 (1): the tenant's (provider, tenant) quota is one bucket whether or not an event matches
   * one of its rules. It used to be two (the multi-rule key for the matching events, the
   * single-rule key for the others), each holding the full quota: 10 refunds and 10 charges at one
   * instant were all admitted against a quota of 10.
   */
  @Test
  void shouldHoldEveryEventOfATenantWithARuleToItsOneProviderQuota() {
    start();
    send("bulkrefunder", "a-api", "refunds/1", 10);
    send("bulkrefunder", "a-api", "charges/1", 10);
    assertEquals(10, ready.readRecordsToList().size(), "one quota of 10 for refunds and charges together");
    assertEquals(10, regate1s.readRecordsToList().size(), "the other ten wait for the quota's refill");
    assertEquals(0, store.ruleLevel(RuleKeys.provider("bulkrefunder", "a-api")), 1e-9,
        "every admitted event, matching the rule or not, was charged to the tenant's one quota");
    assertEquals(10, store.ruleLevel(RuleKeys.rule("bulkrefunder", "refunds")), 1e-9,
        "the rule's own bucket was charged for the refunds only; its 20 held 10 more");
  }

  /** A rule scoped to another provider changes nothing toward this one: the single-rule fast path stays. */
  @Test
  void shouldKeepTheSingleRuleBucketTowardAProviderNoRuleOfTheTenantCanMatch() {
    start();
    send("bscoped", "a-api", null, 1);
    assertEquals(1, ready.readRecordsToList().size());
    assertNull(store.ruleLevel(RuleKeys.provider("bscoped", "a-api")),
        "its rule names b-api: toward a-api the tenant has one rule, in the single-rule bucket");
  }

  @Test
  void shouldShareATierBudgetBetweenTheTenantsOfTheTier() {
    start();
    send("pro1", "b-api", null, 2);
    send("pro2", "b-api", null, 2);
    assertEquals(3, ready.readRecordsToList().size(), "the pro tier's budget of 3 toward b-api");
    assertEquals(1, regate1s.readRecordsToList().size());
  }

  @Test
  void shouldKeepASingleRuleTenantOnItsExistingBucket() {
    start();
    send("plain", "a-api", null, 1);
    assertEquals(1, ready.readRecordsToList().size());
    assertNull(store.ruleLevel(RuleKeys.provider("plain", "a-api")), "no multi-rule bucket for a single rule");
    assertTrue(new BucketKey("a-api", "plain").redisKey().startsWith("sluice:v1:{a-api:plain}"));
  }

  /** Shadow: every event admitted, a refused one charged nothing, so enforced events never wait longer. */
  @Test
  void shouldNeverChargeAShadowTenantsRefusedEventsInAnyRule() {
    start();
    send("watched", "a-api", null, 5);
    assertEquals(5, ready.readRecordsToList().size(), "shadow: all admitted");
    assertEquals(3, wouldDefer.size(), "three would have waited");
    assertEquals(0, store.ruleLevel(RuleKeys.overall("watched")), 1e-9, "only the two that fitted were charged");
    assertEquals(8, store.ruleLevel(RuleKeys.provider("watched", "a-api")), 1e-9,
        "nor was the provider rule charged for the refused ones");
  }
}
