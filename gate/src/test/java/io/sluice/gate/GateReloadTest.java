package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.testkit.FakeClock;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.ConfigLoader;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A configuration reload reaches the gate's next event, without a restart: tenants added or
 * removed, quotas raised or lowered. A bucket keeps its level across the change.
 */
class GateReloadTest {
  private static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s]
      reservationHorizon: 0s
      tiers:
        pro: { weight: 4 }
      providers:
        api:
          url: http://localhost:8081/
          rate: 50/s
          quotas: { pro: { capacity: 2, refill: 1/m } }
      tenants:
        acme: { tier: pro }
      gate: { leaseTarget: 0ms }
      """;

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-23T10:00:00Z"));
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private final LiveConfig live = new LiveConfig(parse(CONFIG));
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestOutputTopic<byte[], byte[]> ready;
  private TestOutputTopic<byte[], byte[]> dlq;
  private int seq;

  private static SluiceConfig parse(String yaml) {
    return ConfigLoader.parse(yaml, Map.of());
  }

  @BeforeEach
  void start() {
    SluiceConfig config = live.get();
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, new GateListener() { }, live::get);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-reload-test");
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

  private void reload(String yaml) {
    assertInstanceOf(LiveConfig.Outcome.Applied.class, live.reload(() -> parse(yaml)));
  }

  @Test
  void aTenantAddedByAReloadIsAdmittedAndOneRemovedIsDeadLettered() {
    send("globex", 1);
    assertEquals(Reason.UNKNOWN_TENANT.code(), reasonOf(dlq.readRecordsToList()));

    reload(CONFIG.replace("acme: { tier: pro }", "acme: { tier: pro }\n  globex: { tier: pro }"));
    send("globex", 1);
    assertEquals(1, ready.readRecordsToList().size(), "globex is a tenant now");

    reload(CONFIG.replace("acme: { tier: pro }", "globex: { tier: pro }"));
    send("acme", 1);
    assertEquals(Reason.UNKNOWN_TENANT.code(), reasonOf(dlq.readRecordsToList()));
    assertEquals(List.of(), ready.readRecordsToList());
  }

  @Test
  void aRaisedQuotaAdmitsMoreAtOnceAndTheBucketKeepsWhatWasSpent() {
    send("acme", 3);
    assertEquals(2, ready.readRecordsToList().size(), "capacity 2");

    reload(CONFIG.replace("capacity: 2,", "capacity: 5,"));
    send("acme", 4);

    // The bucket was empty (2 of 2 spent) and keeps that level: the raise adds room, not a refill.
    assertEquals(0, ready.readRecordsToList().size(),
        "the spent units stay spent: a raised capacity is not a free refill");
    clock.advance(Duration.ofMinutes(3));
    send("acme", 4);
    assertEquals(3, ready.readRecordsToList().size(), "three minutes at 1/m under the new capacity 5");
  }

  private static String reasonOf(List<TestRecord<byte[], byte[]>> deadLetters) {
    assertEquals(1, deadLetters.size(), "one dead letter");
    return HeaderValues.last(deadLetters.get(0).headers(), HeaderNames.REASON).orElseThrow();
  }
}
