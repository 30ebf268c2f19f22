package io.sluice.embedded;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single Kafka node inside this JVM, in KRaft combined mode (broker and controller in one), on a
 * free port of localhost, started with Kafka's own {@link KafkaClusterTestKit}.
 *
 * <p>Why in the JVM: it needs no Docker and starts in a few seconds, so every developer and CI
 * runner can run the integration tests and the {@code demo}. It is a real broker (same code as
 * production, real log directories, real transaction coordinator) with the single-node settings
 * of {@link BrokerSettings}. Its data lives in a temporary directory that {@link #close()} deletes.
 */
public final class InJvmKafkaBroker implements KafkaBroker {

    private static final Logger log = LoggerFactory.getLogger(InJvmKafkaBroker.class);

    private final KafkaClusterTestKit cluster;
    private final Path directory;
    private final String bootstrapServers;
    private final AtomicBoolean closed = new AtomicBoolean();

    private InJvmKafkaBroker(KafkaClusterTestKit cluster, Path directory) {
        this.cluster = cluster;
        this.directory = directory;
        this.bootstrapServers = cluster.bootstrapServers();
    }

    /** Starts a broker with the single-node settings and returns once it accepts clients. */
    public static InJvmKafkaBroker start() {
        return start(Map.of());
    }

    /**
     * Starts a broker with the single-node settings plus {@code overrides} (server properties, for
     * example {@code transaction.max.timeout.ms}), and returns once it accepts clients.
     *
     * @throws IllegalStateException if the broker does not start; nothing is left running
     */
    public static InJvmKafkaBroker start(Map<String, String> overrides) {
        long startNanos = System.nanoTime();
        Path directory = Directories.createTemp("sluice-kafka-");
        ChildProcesses.register(directory);
        KafkaClusterTestKit cluster = null;
        try {
            TestKitNodes nodes = new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .setBaseDirectory(directory)
                    .build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            BrokerSettings.singleNode().forEach(builder::setConfigProp);
            overrides.forEach(builder::setConfigProp);
            cluster = builder.build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            InJvmKafkaBroker broker = new InJvmKafkaBroker(cluster, directory);
            log.info("In-JVM Kafka broker ready at {} in {} ms", broker.bootstrapServers,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            return broker;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(cluster);
            deleteDirectory(directory);
            throw new IllegalStateException("The in-JVM Kafka broker did not start: " + e, e);
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The temporary directory holding the broker's metadata and log directories. */
    Path directory() {
        return directory;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            long startNanos = System.nanoTime();
            closeQuietly(cluster);
            deleteDirectory(directory);
            log.info("In-JVM Kafka broker at {} stopped in {} ms", bootstrapServers,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        }
    }

    @Override
    public String toString() {
        return "in-JVM Kafka broker " + bootstrapServers;
    }

    private static void closeQuietly(KafkaClusterTestKit cluster) {
        if (cluster == null) {
            return;
        }
        try {
            cluster.close();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("The in-JVM Kafka broker did not shut down cleanly", e);
        }
    }

    private static void deleteDirectory(Path directory) {
        try {
            Directories.deleteRecursively(directory);
        } catch (RuntimeException e) {
            log.warn("Could not delete {}: {}", directory, e.getMessage());
        }
        ChildProcesses.unregister(directory);
    }
}
