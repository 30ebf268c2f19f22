package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.ConfigLoader;
import io.sluice.config.GroupMembership;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/** The gate's Kafka Streams configuration carries the user's kafka.properties, Sluice's own win. */
class GateClientPropertiesTest {
  @Test
  void shouldPassKafkaPropertiesToTheStreamsConfigurationAndKeepSluicesOwnSettings() {
    SluiceConfig config = ConfigLoader.parse("""
        kafka:
          bootstrap: b1:9093
          properties:
            security.protocol: SASL_SSL
            sasl.mechanism: SCRAM-SHA-512
            sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";'
            ssl.truststore.location: /etc/sluice/truststore.jks
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    Properties props = Gate.properties(config, Map.of());

    assertEquals("b1:9093", props.get("bootstrap.servers"));
    assertEquals("SASL_SSL", props.get("security.protocol"));
    assertEquals("SCRAM-SHA-512", props.get("sasl.mechanism"));
    assertEquals(config.kafka().properties().get("sasl.jaas.config"), props.get("sasl.jaas.config"));
    assertEquals("/etc/sluice/truststore.jks", props.get("ssl.truststore.location"));
    assertEquals("exactly_once_v2", props.get("processing.guarantee"));
    assertEquals("sluice-gate", props.get("application.id"));
  }

  @Test
  void shouldProcessWhatIsBufferedWithoutIdlingForTheOtherInputPartition() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    StreamsConfig streams = new StreamsConfig(Gate.properties(config, Map.of()));

    assertEquals(-1L, streams.getLong(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG));
  }

  @Test
  void shouldTakeKafkaFivesDefaultForGlobalProcessingErrorsSoThatStartingLogsNoWarningAboutIt() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    StreamsConfig streams = new StreamsConfig(Gate.properties(config, Map.of()));

    assertEquals(true, streams.getBoolean(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG));
  }

  @Test
  void shouldHandAKilledGatesPartitionsOverWithinTheShortSessionTimeout() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    Map<String, Object> mainConsumer =
        new StreamsConfig(Gate.properties(config, Map.of())).getMainConsumerConfigs("sluice-gate", "c", 0);

    assertEquals(GroupMembership.SESSION_TIMEOUT_MS, mainConsumer.get("session.timeout.ms"));
    assertEquals(GroupMembership.HEARTBEAT_INTERVAL_MS, mainConsumer.get("heartbeat.interval.ms"));
  }

  @Test
  void shouldSendEveryRecordAnAcceptedPayloadCanMakeEvenWhenTheUserRaisesTheRequestSize() {
    SluiceConfig config = ConfigLoader.parse("""
        kafka: { properties: { max.request.size: "2000000" } }
        gate: { maxPayloadBytes: 1900000 }
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    Map<String, Object> producer =
        new StreamsConfig(Gate.properties(config, Map.of())).getProducerConfigs("c");

    assertEquals(2_000_000 + 65_536, producer.get("max.request.size"));
    assertEquals(5000, producer.get("transaction.timeout.ms"));
  }

  @Test
  void shouldKeepTheDeadLetterHeadroomAtKafkasDefaults() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    Map<String, Object> producer =
        new StreamsConfig(Gate.properties(config, Map.of())).getProducerConfigs("c");

    assertEquals(OutputLimits.MAX_RECORD_BYTES, producer.get("max.request.size"));
  }
}
