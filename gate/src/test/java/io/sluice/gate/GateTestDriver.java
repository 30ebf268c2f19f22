package io.sluice.gate;

import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The gate topology on TopologyTestDriver, with its input and output topics as bytes. */
final class GateTestDriver implements AutoCloseable {
  final Topics topics;
  final TopologyTestDriver driver;
  final TestInputTopic<byte[], byte[]> inbound;
  final TestInputTopic<byte[], byte[]> regate;
  final TestOutputTopic<byte[], byte[]> ready;
  final TestOutputTopic<byte[], byte[]> dlq;
  final TestOutputTopic<byte[], byte[]> outcomes;

  GateTestDriver(GateWiring wiring, String applicationId) {
    topics = new Topics(wiring.config().kafka().topicPrefix(), wiring.config().ladder());
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    regate = driver.createInputTopic(topics.regate(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = output(topics.ready());
    dlq = output(topics.dlq());
    outcomes = output(topics.outcomes());
  }

  /** Writes an event of {@code tenant} to inbound, keyed by its tenant, {@code extra} fields added. */
  void sendInbound(String tenant, String id, String provider, String extra) {
    inbound.pipeInput(new TestRecord<>(bytes(tenant), bytes("{\"id\":\"" + id + "\",\"tenant\":\"" + tenant
        + "\",\"provider\":\"" + provider + "\"" + extra + ",\"payload\":{}}")));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  TestOutputTopic<byte[], byte[]> delay(Duration step) {
    return output(topics.delay(step));
  }

  private TestOutputTopic<byte[], byte[]> output(String topic) {
    return driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @Override
  public void close() {
    driver.close();
  }
}
