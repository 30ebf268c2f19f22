package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.dispatcher.dispatch.DispatcherClients;
import io.sluice.app.ops.KafkaReachability;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import java.io.BufferedReader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every Kafka client Sluice builds gets the user's {@code kafka.properties}. A client hands its
 * whole configuration to each of its {@code metric.reporters} when it is built, before it connects
 * anywhere, so a recording reporter named in the properties sees what each client was given: no
 * broker is needed (the bootstrap address refuses connections).
 */
class KafkaClientPropertiesTest {
  private static final ConcurrentLinkedQueue<Map<String, ?>> SEEN = new ConcurrentLinkedQueue<>();

  /** Records the configuration of every client that builds it. */
  public static final class RecordingReporter implements MetricsReporter {
    @Override
    public void configure(Map<String, ?> configs) {
      SEEN.add(Map.copyOf(configs));
    }

    @Override
    public void init(List<KafkaMetric> metrics) {}

    @Override
    public void metricChange(KafkaMetric metric) {}

    @Override
    public void metricRemoval(KafkaMetric metric) {}

    @Override
    public void close() {}
  }

  private final SluiceConfig config = ConfigLoader.parse("""
      kafka:
        bootstrap: 127.0.0.1:1
        properties:
          metric.reporters: %s
          security.protocol: PLAINTEXT
          sasl.mechanism: SCRAM-SHA-512
          client.dns.lookup: use_all_dns_ips
          default.api.timeout.ms: 1000
          max.block.ms: 1000
      tiers: { free: { weight: 1 } }
      providers:
        p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
      """.formatted(RecordingReporter.class.getName()), Map.of());

  @BeforeEach
  void forgetEarlierClients() {
    SEEN.clear();
  }

  @Test
  void shouldGiveTheDispatchersConsumerAndProducerTheProperties() {
    DispatcherClients.consumer(config, "c").close();
    DispatcherClients.producer(config, "p").close();

    assertEveryClientGotTheProperties(2);
  }

  @Test
  void shouldGiveTheRelaysConsumerAndProducerTheProperties() {
    RelayService.start(config, new RelayListener() {}).close();

    assertEveryClientGotTheProperties(2);
  }

  @Test
  void shouldGiveTheAdminClientsTheProperties() throws Exception {
    new TopicAdmin(config).close();
    KafkaReachability.of(config.kafka()).close();

    assertEveryClientGotTheProperties(2);
  }

  @Test
  void shouldGiveTheCommandLineToolsTheProperties() throws Exception {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    Produce.lines(config.kafka(), topics, new BufferedReader(new StringReader("")));
    // No broker: Verify gives up after the properties' default.api.timeout.ms of 1 s.
    assertThrows(RuntimeException.class,
        () -> Verify.run(config.kafka(), topics, java.time.Duration.ofSeconds(1)));

    assertEveryClientGotTheProperties(2);
  }

  @Test
  void shouldGiveThePreflightCheckTheProperties() {
    assertThrows(Preflight.Unreachable.class, () -> Preflight.kafka(config));

    assertEveryClientGotTheProperties(1);
  }

  private static void assertEveryClientGotTheProperties(int clients) {
    List<Map<String, ?>> seen = new ArrayList<>(SEEN);
    assertEquals(clients, seen.size(), "clients built: " + seen);
    for (Map<String, ?> client : seen) {
      assertEquals("127.0.0.1:1", String.valueOf(client.get("bootstrap.servers")), client.toString());
      assertEquals("PLAINTEXT", client.get("security.protocol"), client.toString());
      assertEquals("SCRAM-SHA-512", client.get("sasl.mechanism"), client.toString());
      assertEquals("use_all_dns_ips", client.get("client.dns.lookup"), client.toString());
      assertFalse(client.containsKey("sluice.unused"), client.toString());
    }
  }
}
