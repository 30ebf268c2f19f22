package io.sluice.embedded;

import java.net.BindException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;

/**
 * A single Kafka node inside this JVM, in KRaft combined mode (broker and controller in one), on
 * free ports of localhost.
 *
 * <p>It is the broker of the Kafka distribution, started the way {@code kafka-server-start} starts
 * it: {@link CombinedKraftNode} writes the server properties and formats the log directory
 * ({@code kafka-storage format}), then {@link KafkaRaftServer} runs them. No test kit: the demo
 * ships in the application jar, and a test harness (Kafka's {@code KafkaClusterTestKit}) has no
 * compatibility promise and pulls JUnit in. What this class relies on is the broker's own
 * interface: its server properties, the storage tool, and the server class that
 * {@code kafka.Kafka} starts.
 *
 * <p>Why in the JVM: it needs no Docker and starts in a few seconds, so every developer and CI
 * runner can run the integration tests and the {@code demo}. It is a real broker (real log
 * directories, real transaction coordinator) with the single-node settings of
 * {@link BrokerSettings}. Its data lives in a temporary directory that {@link #close()} deletes.
 */
public final class InJvmKafkaBroker implements KafkaBroker {

    private static final Logger log = LoggerFactory.getLogger(InJvmKafkaBroker.class);

    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    /** Another process can take a free port before the broker binds it; each retry takes new ports. */
    private static final int BIND_ATTEMPTS = 5;

    private final KafkaRaftServer server;
    private final Path directory;
    private final String bootstrapServers;
    /** The port of the listener advertised elsewhere ({@link #startBehind}), or -1. */
    private final int behindPort;
    private final AtomicBoolean closed = new AtomicBoolean();

    private InJvmKafkaBroker(KafkaRaftServer server, Path directory, String bootstrapServers,
            int behindPort) {
        this.server = server;
        this.directory = directory;
        this.bootstrapServers = bootstrapServers;
        this.behindPort = behindPort;
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
        return start(overrides, null);
    }

    /**
     * Starts a broker with the single-node settings and a second client listener, {@code BEHIND},
     * on a port of its own ({@link #behindPort()}) that the broker advertises as {@code
     * advertised} ({@code host:port}): a client that bootstraps through {@code advertised} (a
     * proxy forwarding to {@link #behindPort()}) is told to reach the broker there, so all its
     * traffic passes the proxy. {@link #bootstrapServers()} stays direct.
     */
    public static InJvmKafkaBroker startBehind(String advertised) {
        return start(Map.of(), advertised);
    }

    /** The port of the listener a proxy stands in front of ({@link #startBehind}). */
    public int behindPort() {
        if (behindPort < 0) {
            throw new IllegalStateException("started without a listener behind a proxy");
        }
        return behindPort;
    }

    private static InJvmKafkaBroker start(Map<String, String> overrides, String behind) {
        long startNanos = System.nanoTime();
        RuntimeException lastBindFailure = null;
        for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
            try {
                InJvmKafkaBroker broker = startOnce(overrides, behind);
                log.info("In-JVM Kafka broker ready at {} in {} ms", broker.bootstrapServers,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
                return broker;
            } catch (RuntimeException e) {
                if (!causedByBind(e)) {
                    throw e;
                }
                lastBindFailure = e;
                log.debug("A port was taken before the broker could bind it; trying other ports", e);
            }
        }
        throw new IllegalStateException("The in-JVM Kafka broker did not start: another process took its ports "
                + BIND_ATTEMPTS + " times before it could bind them", lastBindFailure);
    }

    private static InJvmKafkaBroker startOnce(Map<String, String> overrides, String behind) {
        Path directory = Directories.createTemp("sluice-kafka-");
        ChildProcesses.register(directory);
        int port = FreePorts.loopback();
        int controllerPort = FreePorts.loopback();
        Map<String, String> settings = CombinedKraftNode.serverProperties(directory.resolve("logs"), port, controllerPort);
        int behindPort = -1;
        if (behind != null) {
            behindPort = FreePorts.loopback();
            settings.merge("listeners", ",BEHIND://localhost:" + behindPort, String::concat);
            settings.merge("advertised.listeners", ",BEHIND://" + behind, String::concat);
            settings.merge("listener.security.protocol.map", ",BEHIND:PLAINTEXT", String::concat);
        }
        settings.putAll(overrides);
        KafkaRaftServer server = null;
        try {
            CombinedKraftNode.format(CombinedKraftNode.writeProperties(directory, settings));
            Properties properties = new Properties();
            properties.putAll(settings);
            server = new KafkaRaftServer(KafkaConfig.fromProps(properties, false), Time.SYSTEM);
            // Returns once the broker has caught up with the metadata log and is unfenced.
            server.startup();
            InJvmKafkaBroker broker = new InJvmKafkaBroker(server, directory, "localhost:" + port, behindPort);
            broker.awaitClients();
            return broker;
        } catch (RuntimeException e) {
            shutDownQuietly(server);
            deleteDirectory(directory);
            throw e instanceof IllegalStateException ? e
                    : new IllegalStateException("The in-JVM Kafka broker did not start: " + e, e);
        }
    }

    /** Waits until an admin client sees this node in the cluster it describes. */
    private void awaitClients() {
        Deadline deadline = Deadline.after(READY_TIMEOUT);
        try (Admin admin = admin()) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get(deadline.remaining().toMillis(), TimeUnit.MILLISECONDS).isEmpty()) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("The in-JVM broker does not answer yet", e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while waiting for the in-JVM Kafka broker", e);
                }
                if (deadline.expired()) {
                    throw new IllegalStateException("The in-JVM Kafka broker at " + bootstrapServers
                            + " did not answer clients within " + READY_TIMEOUT.toSeconds() + " s");
                }
                deadline.pause();
            }
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
            shutDownQuietly(server);
            deleteDirectory(directory);
            log.info("In-JVM Kafka broker at {} stopped in {} ms", bootstrapServers,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        }
    }

    @Override
    public String toString() {
        return "in-JVM Kafka broker " + bootstrapServers;
    }

    private static boolean causedByBind(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    private static void shutDownQuietly(KafkaRaftServer server) {
        if (server == null) {
            return;
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
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
