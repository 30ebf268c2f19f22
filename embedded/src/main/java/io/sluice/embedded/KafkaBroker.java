package io.sluice.embedded;

import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A running Kafka broker for tests and the demo, whichever way it was started (see
 * {@code KafkaBrokers.start()} in the test kit). It is configured for a single node: internal topics have
 * replication factor 1, so transactions and {@code exactly_once_v2} work, and topics are never
 * created implicitly, so a test that forgets to create one fails instead of silently getting one
 * partition.
 */
public interface KafkaBroker extends AutoCloseable {

    /** The value for {@code bootstrap.servers}, for example {@code localhost:40123}. */
    String bootstrapServers();

    /**
     * Creates {@code name} with {@code partitions} partitions and the broker's replication factor,
     * and returns once the broker's metadata shows every partition with a leader, so a producer
     * or consumer can use it right away. Idempotent: an existing topic with the same partition
     * count is fine.
     *
     * @throws IllegalStateException if the topic exists with another partition count, or Kafka
     *     refuses to create it
     */
    default void createTopic(String name, int partitions) {
        createTopics(Map.of(name, partitions));
    }

    /** {@link #createTopic(String, int)} for several topics at once: topic name → partitions. */
    default void createTopics(Map<String, Integer> partitionsByTopic) {
        try (Admin admin = admin()) {
            TopicCreation.create(admin, partitionsByTopic);
        }
    }

    /** A new admin client connected to this broker; the caller closes it. */
    default Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG, "sluice-embedded-admin"));
    }

    /** Stops the broker and deletes its data. Idempotent. */
    @Override
    void close();
}
