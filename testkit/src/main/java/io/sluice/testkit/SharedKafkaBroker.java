package io.sluice.testkit;

import io.sluice.embedded.KafkaBroker;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;

/**
 * The view of the JVM-wide broker that {@link RealServers} hands to tests: everything works except
 * {@link #close()}, which does nothing, because other test classes still use the broker. The
 * extension closes the real one when the test plan ends.
 */
final class SharedKafkaBroker implements KafkaBroker {

    private final KafkaBroker broker;

    SharedKafkaBroker(KafkaBroker broker) {
        this.broker = broker;
    }

    @Override
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public void createTopic(String name, int partitions) {
        broker.createTopic(name, partitions);
    }

    @Override
    public void createTopics(Map<String, Integer> partitionsByTopic) {
        broker.createTopics(partitionsByTopic);
    }

    @Override
    public Admin admin() {
        return broker.admin();
    }

    /** Does nothing: the broker is shared by every test class in this JVM. */
    @Override
    public void close() {
    }

    /** Stops the real broker: for {@link RealServers} only. */
    void closeShared() {
        broker.close();
    }

    @Override
    public String toString() {
        return "shared " + broker;
    }
}
