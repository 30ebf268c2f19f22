package io.sluice.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * The in-JVM broker on one node does what Sluice needs: topics, produce/consume, and transactions
 * (the gate runs {@code exactly_once_v2}, which needs the transaction state log).
 */
class InJvmKafkaBrokerIT {

    private static final Duration CONSUME_TIMEOUT = Duration.ofSeconds(30);

    private static InJvmKafkaBroker broker;
    private static long startMillis;

    @BeforeAll
    static void startBroker() {
        long startNanos = System.nanoTime();
        broker = InJvmKafkaBroker.start();
        startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @AfterAll
    static void stopBrokerAndCheckItsDirectoryIsGone() {
        Path directory = broker.directory();
        broker.close();
        broker.close(); // idempotent
        assertFalse(Files.exists(directory), "close() should delete " + directory);
    }

    @Test
    void shouldStartWithinAFewSeconds(TestReporter reporter) {
        reporter.publishEntry("in-JVM broker start ms", Long.toString(startMillis));
        assertTrue(startMillis < 20_000, "the broker took " + startMillis + " ms to start");
        assertTrue(broker.bootstrapServers().matches("[\\w.-]+:\\d+"), broker.bootstrapServers());
    }

    @Test
    void shouldCreateATopicIdempotentlyWithItsPartitions() throws Exception {
        broker.createTopic("idempotent", 3);
        broker.createTopic("idempotent", 3);

        try (Admin admin = broker.admin()) {
            int partitions = admin.describeTopics(Set.of("idempotent")).allTopicNames().get()
                    .get("idempotent").partitions().size();
            assertEquals(3, partitions);
        }
    }

    @Test
    void shouldRefuseAnExistingTopicWithAnotherPartitionCount() {
        broker.createTopic("three-partitions", 3);

        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> broker.createTopic("three-partitions", 5));
        assertTrue(error.getMessage().contains("already exists with 3 partitions, not 5"), error.getMessage());
    }

    @Test
    void shouldNotCreateTopicsImplicitly() {
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000))) {
            assertThrows(TimeoutException.class, () -> producer.partitionsFor("never-created"));
        }
    }

    @Test
    void shouldConsumeBackARecordItProduced() throws Exception {
        broker.createTopics(Map.of("round-trip", 2));

        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>("round-trip", "tenant-a", "hello")).get();
        }

        List<ConsumerRecord<String, String>> records = consume("round-trip", "read_uncommitted", 1);
        assertEquals("tenant-a", records.get(0).key());
        assertEquals("hello", records.get(0).value());
    }

    @Test
    void shouldCommitATransactionAndHideAnAbortedOneOnASingleNode() {
        broker.createTopic("transactional", 1);

        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "in-jvm-broker-test",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("transactional", "k", "aborted"));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("transactional", "k", "committed"));
            producer.commitTransaction();
        }

        List<ConsumerRecord<String, String>> records = consume("transactional", "read_committed", 1);
        assertEquals(List.of("committed"), records.stream().map(ConsumerRecord::value).toList());
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> overrides) {
        Map<String, Object> config = new HashMap<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"));
        config.putAll(overrides);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /**
     * Reads {@code topic} from the beginning until {@code expected} records arrived, then keeps
     * reading until the consumer has reached the end of every partition, so a record that should
     * not be there (an aborted one) would be seen.
     */
    private static List<ConsumerRecord<String, String>> consume(String topic, String isolation, int expected) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "in-jvm-broker-test-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + CONSUME_TIMEOUT.toNanos();
            while (records.size() < expected || !atEnd(consumer)) {
                assertTrue(System.nanoTime() < deadline, "expected " + expected + " records from " + topic
                        + " within " + CONSUME_TIMEOUT + ", got " + records.size());
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        assertEquals(expected, records.size(), "records in " + topic);
        return records;
    }

    private static boolean atEnd(KafkaConsumer<String, String> consumer) {
        if (consumer.assignment().isEmpty()) {
            return false;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }
}
