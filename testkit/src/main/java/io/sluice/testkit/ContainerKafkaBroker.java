package io.sluice.testkit;

import io.sluice.embedded.BrokerSettings;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.Settings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * A single-node KRaft broker in a Docker container, started with Testcontainers, with the same
 * single-node settings as the in-JVM broker ({@link BrokerSettings}).
 *
 * <p>Why also a container: it is the real distribution (the {@code apache/kafka} image, its own
 * JVM and its own dependency versions), so it is what CI should use where Docker is available. The
 * image can be changed with the {@value #IMAGE_SETTING} setting.
 */
public final class ContainerKafkaBroker implements KafkaBroker {

    private static final Logger log = LoggerFactory.getLogger(ContainerKafkaBroker.class);

    /** Setting (system property or environment variable) that overrides {@link #DEFAULT_IMAGE}. */
    public static final String IMAGE_SETTING = "SLUICE_KAFKA_IMAGE";
    /** The image used unless {@value #IMAGE_SETTING} names another. */
    public static final String DEFAULT_IMAGE = "apache/kafka:4.1.0";

    private final KafkaContainer container;
    private final String bootstrapServers;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ContainerKafkaBroker(KafkaContainer container) {
        this.container = container;
        this.bootstrapServers = container.getBootstrapServers();
    }

    /**
     * Starts the container and returns once the broker accepts clients. Requires Docker; use
     * {@link KafkaBrokers#start()} to fall back to the in-JVM broker when it is absent.
     */
    public static ContainerKafkaBroker start() {
        long startNanos = System.nanoTime();
        String image = Settings.get(IMAGE_SETTING).orElse(DEFAULT_IMAGE);
        KafkaContainer container = new KafkaContainer(image);
        BrokerSettings.singleNode().forEach((property, value) ->
                container.withEnv(BrokerSettings.environmentVariable(property), value));
        try {
            container.start();
        } catch (RuntimeException e) {
            container.stop();
            throw new IllegalStateException("The Kafka container " + image + " did not start: " + e.getMessage(), e);
        }
        ContainerKafkaBroker broker = new ContainerKafkaBroker(container);
        log.info("Kafka container {} ready at {} in {} ms", image, broker.bootstrapServers,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        return broker;
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Stops and removes the container. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            container.stop();
        }
    }

    @Override
    public String toString() {
        return "Kafka container " + container.getDockerImageName() + " " + bootstrapServers;
    }
}
