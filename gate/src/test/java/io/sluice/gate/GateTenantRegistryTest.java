package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.ConfigLoader;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.tenants.TenantBudgets;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gate decides a tenant by its registry record when it has one (tier, quotas, shadow, and its
 * overall budget and rules when it holds them), by the
 * file's entry or the default tier otherwise, and a deleted record hands the tenant back to the
 * file, all at the next event.
 */
class GateTenantRegistryTest {
  private static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s]
      reservationHorizon: 0s
      tiers:
        pro: { weight: 4 }
        free: { weight: 1 }
      providers:
        api:
          url: http://localhost:8081/
          rate: 50/s
          quotas:
            pro: { capacity: 3, refill: 1/m }
            free: { capacity: 1, refill: 1/m }
      tenants:
        acme: { tier: free }
        initech: { tier: pro, overall: { capacity: 1, refill: 1/m } }
      gate: { leaseTarget: 0ms }
      """;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private final Map<String, TenantRecord> registry = new ConcurrentHashMap<>();
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestOutputTopic<byte[], byte[]> ready;
  private TestOutputTopic<byte[], byte[]> dlq;
  private int seq;

  @BeforeEach
  void start() {
    SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, new GateListener() { }, () -> config, registry::get);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-tenant-registry-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void close() {
    driver.close();
  }

  private void send(String tenant, int n) {
    for (int i = 0; i < n; i++) {
      String json = "{\"id\":\"e" + (seq++) + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"api\"}";
      inbound.pipeInput(new TestRecord<>(tenant.getBytes(StandardCharsets.UTF_8),
          json.getBytes(StandardCharsets.UTF_8)));
    }
  }

  private List<String> readyTiers() {
    return ready.readRecordsToList().stream()
        .map(r -> HeaderValues.last(r.headers(), HeaderNames.TIER).orElseThrow()).toList();
  }

  @Test
  void aTenantOnlyTheRegistryKnowsIsAdmittedInItsTierAndADeleteMakesItUnknownAgain() {
    send("globex", 1);
    assertEquals(1, dlq.readRecordsToList().size(), "no entry, no default tier: unknown");

    registry.put("globex", new TenantRecord("pro", Map.of(), false));
    send("globex", 4);
    assertEquals(List.of("pro", "pro", "pro"), readyTiers(), "the pro tier's capacity 3");

    registry.remove("globex");
    send("globex", 1);
    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertEquals(1, dead.size());
    assertEquals(Reason.UNKNOWN_TENANT.code(),
        HeaderValues.last(dead.get(0).headers(), HeaderNames.REASON).orElseThrow());
  }

  @Test
  void aRegistryRecordOverridesTheFilesTierAndQuota() {
    send("acme", 2);
    assertEquals(List.of("free"), readyTiers(), "the file: free, capacity 1");

    registry.put("acme", new TenantRecord("pro", Map.of("api", new Quota(6, Rate.parse("1/m"))), false));
    // The bucket keeps its level across the change (a raise is room, not a refill): six minutes
    // at 1/m fill it to the record's capacity 6, where the file's would stop at 1.
    clock.advance(java.time.Duration.ofMinutes(6));
    send("acme", 7);
    assertEquals(List.of("pro", "pro", "pro", "pro", "pro", "pro"), readyTiers());

    registry.put("acme", new TenantRecord("free", Map.of(), true));
    send("acme", 3);
    assertEquals(3, readyTiers().size(), "shadow: decided and counted, never held back");
  }

  @Test
  void aRecordHoldingBudgetsReplacesTheFilesOverallAndRulesAndOneWithoutKeepsThem() {
    send("initech", 3);
    assertEquals(1, readyTiers().size(), "the file's overall budget, capacity 1");

    registry.put("initech", new TenantRecord("pro", Map.of(), false));
    send("initech", 2);
    assertEquals(0, readyTiers().size(), "a record holding no budgets keeps the file's (spent)");

    registry.put("initech", new TenantRecord("pro", Map.of(), false, Map.of(), TenantBudgets.NONE));
    send("initech", 3);
    // (A tenant with one rule is charged through token_bucket.lua's own key, not the one charged
    // with other rules, so the quota is found full: as after a reload removing the file's overall.)
    assertEquals(3, readyTiers().size(), "no overall: the pro quota alone, capacity 3");

    registry.put("initech", new TenantRecord("pro", Map.of("api", new Quota(10, Rate.parse("1/m"))),
        false, Map.of(), new TenantBudgets(null, Map.of("api-calls",
            new QuotaRule("api", null, null, null, new Quota(2, Rate.parse("1/m")))))));
    clock.advance(java.time.Duration.ofMinutes(10));
    send("initech", 5);
    assertEquals(2, readyTiers().size(), "the record's rule, capacity 2, under a quota of 10");
  }
}
