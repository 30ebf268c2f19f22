package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.Await;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import io.sluice.gate.OutputLimits;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 9, item 5: no inbound record may stall its partition because what the gate writes for it
 * is too large. Before the fix, the dead letter of a value near the broker's limit was refused
 * (RecordTooLargeException), the transaction aborted, the record was read again, for ever: the
 * good event behind it never came out.
 *
 * <p>Each test writes a too-large record and a good event behind it on the same (single)
 * partition, and waits a few seconds for both: the dead letter in {@code sluice.dlq}, the good
 * event in {@code sluice.ready}.
 */
@ExtendWith(RealServers.class)
class TooLargeOutputIT {
  private static final Map<String, Object> FAST_COMMITS = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
  /** From the produce to the dead letter and the good event behind it, the gate already running. */
  private static final Duration FEW_SECONDS = Duration.ofSeconds(10);

  private static final String CONFIG = """
      ladder: [1s]
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        api:
          url: http://localhost:8081/
          rate: 100/s
          onRedisDown: fail_open
          quotas: { free: { capacity: 100, refill: 100/s } }
      gate: { maxPayloadBytes: 262144 }
      """;

  @Test
  @DisplayName("a value just under the broker's limit, and one over maxPayloadBytes: dead-lettered with their bytes, the partition flows")
  void valueNearTheBrokersLimitIsDeadLetteredWithItsBytes(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 1);
    // With no headers a single-record batch costs under 100 bytes beyond key and value.
    byte[] nearLimit = filled(OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES - 200, 'x');
    byte[] overPayload = filled(300_000, 'y');
    try (Gate gate = runningGate(config);
         KafkaProducer<byte[], byte[]> p = producer(broker, OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES)) {
      long start = System.nanoTime();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t1"), nearLimit)).get();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t1"), overPayload)).get();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t"), goodEvent("after-big"))).get();

      List<ConsumerRecord<byte[], byte[]>> out = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.dlq(), topics.ready()),
          all -> count(all, topics.dlq()) >= 2 && count(all, topics.ready()) >= 1, FEW_SECONDS);
      System.out.printf("too-large outputs: two dead letters and the good event after them in %d ms%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));

      List<ConsumerRecord<byte[], byte[]>> dead = of(out, topics.dlq());
      assertEquals(2, dead.size());
      assertArrayEquals(nearLimit, dead.get(0).value(), "the near-limit value is dead-lettered byte for byte");
      assertArrayEquals(overPayload, dead.get(1).value(), "the oversize value is dead-lettered byte for byte");
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        DeadLetter d = DeadLetter.fromHeaders(r.headers());
        assertEquals("invalid", d.reason());
        assertTrue(d.detail().contains(String.valueOf(r.value().length)), d.detail());
      }
      assertTrue(new String(of(out, topics.ready()).get(0).value(), UTF_8).contains("after-big"));
    }
  }

  @Test
  @DisplayName("a dead letter the DLQ topic refuses (max.message.bytes too small): dead-lettered without its value after one abort")
  void deadLetterTheTopicRefusesGoesWithoutItsValue(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    createWithLimit(broker, topics.dlq(), 100_000);
    broker.createTopics(topics.partitionCounts(1, 1));
    byte[] notJson = filled(200_000, 'z'); // under maxPayloadBytes, invalid JSON, over the DLQ's limit
    try (Gate gate = runningGate(config);
         KafkaProducer<byte[], byte[]> p = producer(broker, OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES)) {
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t2"), notJson)).get();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t"), goodEvent("after-refused"))).get();

      List<ConsumerRecord<byte[], byte[]>> out = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.dlq(), topics.ready()),
          all -> count(all, topics.dlq()) >= 1 && count(all, topics.ready()) >= 1, FEW_SECONDS.plusSeconds(10));
      ConsumerRecord<byte[], byte[]> dead = of(out, topics.dlq()).get(0);
      assertValueLess(dead, "t2", 200_000, topics.inbound() + "-0@0");
      assertTrue(new String(of(out, topics.ready()).get(0).value(), UTF_8).contains("after-refused"));
    }
  }

  @Test
  @DisplayName("an inbound topic that takes more than the gate's producer sends: dead-lettered without its value, no abort")
  void deadLetterLargerThanTheProducerSendsGoesWithoutItsValue(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    createWithLimit(broker, topics.inbound(), 3_000_000);
    broker.createTopics(topics.partitionCounts(1, 1));
    byte[] huge = filled(1_500_000, 'w');
    try (Gate gate = runningGate(config);
         KafkaProducer<byte[], byte[]> p = producer(broker, 3_000_000)) {
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t3"), huge)).get();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t"), goodEvent("after-huge"))).get();

      List<ConsumerRecord<byte[], byte[]>> out = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.dlq(), topics.ready()),
          all -> count(all, topics.dlq()) >= 1 && count(all, topics.ready()) >= 1, FEW_SECONDS);
      ConsumerRecord<byte[], byte[]> dead = of(out, topics.dlq()).get(0);
      assertValueLess(dead, "t3", 1_500_000, topics.inbound() + "-0@0");
      assertTrue(new String(of(out, topics.ready()).get(0).value(), UTF_8).contains("after-huge"));
    }
  }

  @Test
  @DisplayName("a topic's limit lowered while the gate runs: the broker refuses, the handler remembers, the retry dead-letters it without its value")
  void refusalByTheBrokerIsRememberedAndTheRetryGoesWithoutItsValue(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 1);
    byte[] notJson = filled(200_000, 'v');
    Map<String, Object> overrides = new java.util.HashMap<>(FAST_COMMITS);
    // The refusal aborts the transaction and fails the stream thread; its replacement waits for
    // the failed member to leave the group.
    overrides.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 6000);
    try (Gate gate = runningGate(config, overrides);
         KafkaProducer<byte[], byte[]> p = producer(broker, OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES);
         Admin admin = broker.admin()) {
      // A first dead letter: the gate has read the topics' limits.
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t4"), bytes("not json"))).get();
      KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.dlq()), all -> all.size() >= 1, FEW_SECONDS);
      var dlq = new org.apache.kafka.common.config.ConfigResource(
          org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topics.dlq());
      admin.incrementalAlterConfigs(Map.of(dlq, List.of(new org.apache.kafka.clients.admin.AlterConfigOp(
          new org.apache.kafka.clients.admin.ConfigEntry("max.message.bytes", "100000"),
          org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);

      long start = System.nanoTime();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t4"), notJson)).get();
      p.send(new ProducerRecord<>(topics.inbound(), bytes("t"), goodEvent("after-lowered"))).get();
      List<ConsumerRecord<byte[], byte[]>> out = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.dlq(), topics.ready()),
          all -> count(all, topics.dlq()) >= 2 && count(all, topics.ready()) >= 1, Duration.ofSeconds(45));
      System.out.printf("too-large outputs: a refusal by the broker settled in %d ms%n",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
      ConsumerRecord<byte[], byte[]> dead = of(out, topics.dlq()).get(1);
      assertValueLess(dead, "t4", 200_000, topics.inbound() + "-0@1");
      assertTrue(DeadLetter.fromHeaders(dead.headers()).detail().contains("Kafka refused"));
      assertTrue(new String(of(out, topics.ready()).get(0).value(), UTF_8).contains("after-lowered"));
    }
  }

  private static void assertValueLess(ConsumerRecord<byte[], byte[]> dead, String key, int valueBytes,
      String source) {
    assertNull(dead.value(), "the dead letter has no value");
    assertArrayEquals(bytes(key), dead.key(), "the dead letter keeps its key");
    DeadLetter d = DeadLetter.fromHeaders(dead.headers());
    assertEquals("invalid", d.reason());
    assertEquals(source, d.source());
    assertTrue(d.detail().contains("without its value of " + valueBytes + " bytes"), d.detail());
    assertTrue(d.detail().contains(source), d.detail());
  }

  /** A gate whose stream threads run, so that the time measured is the gate's, not its start-up. */
  private static Gate runningGate(SluiceConfig config) {
    return runningGate(config, FAST_COMMITS);
  }

  private static Gate runningGate(SluiceConfig config, Map<String, Object> overrides) {
    Gate gate = Gate.start(config, new CountingListener(), overrides);
    try {
      Await.until("the gate to start", Duration.ofSeconds(30), gate.streams()::state,
          state -> state == KafkaStreams.State.RUNNING);
    } catch (AssertionError e) {
      gate.close();
      throw e;
    }
    return gate;
  }

  private static void createWithLimit(KafkaBroker broker, String topic, int maxMessageBytes) throws Exception {
    try (Admin admin = broker.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty())
          .configs(Map.of("max.message.bytes", String.valueOf(maxMessageBytes))))).all().get(30, TimeUnit.SECONDS);
    }
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaBroker broker, int maxRequestSize) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequestSize),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static byte[] goodEvent(String id) {
    return bytes("{\"id\":\"" + id + "\",\"tenant\":\"t\",\"provider\":\"api\",\"payload\":{}}");
  }

  private static byte[] filled(int n, char c) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  private static long count(List<ConsumerRecord<byte[], byte[]>> all, String topic) {
    return all.stream().filter(r -> r.topic().equals(topic)).count();
  }

  private static List<ConsumerRecord<byte[], byte[]>> of(List<ConsumerRecord<byte[], byte[]>> all, String topic) {
    return all.stream().filter(r -> r.topic().equals(topic)).toList();
  }
}
