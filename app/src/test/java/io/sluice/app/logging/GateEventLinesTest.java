package io.sluice.app.logging;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.schemas.event.EventLog;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.GateListener;
import io.sluice.gate.GateTopology;
import io.sluice.gate.GateWiring;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The gate's dead letters, each one line on sluice.events, through the gate's topology. */
class GateEventLinesTest {
  @Test
  @DisplayName("an unknown tenant's event and a record that is not JSON: one dead_lettered line each, with what the gate knows")
  void gateDeadLettersAreLogged() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        providers: { payments-api: { url: "http://127.0.0.1:1/", rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } } }
        tenants: { acme: { tier: std } }
        """, Map.of());
    FakeClock clock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"));
    GateWiring wiring = new GateWiring(config, (key, spec, request) -> {
      throw new AssertionError("no event here reaches the limiter");
    }, new RedisCircuit(1000, 1000, s -> { }), () -> 1.0, clock, clock::nanos, GateListener.NONE);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-lines-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    List<ILoggingEvent> lines;
    try (TopologyTestDriver driver = new TopologyTestDriver(GateTopology.build(wiring), props);
        CapturedLines captured = new CapturedLines(EventLog.LOGGER, Level.INFO)) {
      TestInputTopic<byte[], byte[]> inbound = driver.createInputTopic(
          new Topics(config.kafka().topicPrefix(), config.ladder()).inbound(),
          new ByteArraySerializer(), new ByteArraySerializer());
      inbound.pipeInput("stranger".getBytes(UTF_8), ("{\"id\":\"e-1\",\"tenant\":\"stranger\","
          + "\"provider\":\"payments-api\",\"payload\":{\"card\":\"4111\"}}").getBytes(UTF_8));
      inbound.pipeInput("x".getBytes(UTF_8), "{not json".getBytes(UTF_8));
      lines = captured.events();
    }

    assertEquals(2, lines.size(), lines.toString());
    assertEquals(Map.of("tenant", "stranger", "provider", "payments-api", "eventId", "e-1",
        "outcome", "dead_lettered", "reason", "unknown_tenant", "attempts", "0"),
        lines.get(0).getMDCPropertyMap());
    assertEquals("dead-lettered by gate (unknown_tenant)", lines.get(0).getFormattedMessage());
    assertEquals(Map.of("tenant", "x", "provider", "-", "eventId", "-", "outcome", "dead_lettered",
        "reason", "invalid", "attempts", "0"), lines.get(1).getMDCPropertyMap());
  }
}
