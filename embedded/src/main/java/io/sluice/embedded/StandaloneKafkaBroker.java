package io.sluice.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A single Kafka node (KRaft, broker and controller combined) as a process of its own:
 * {@code java -cp sluice.jar io.sluice.embedded.StandaloneKafkaBroker DIR PORT CONTROLLER_PORT}.
 *
 * <p>Why beside {@link InJvmKafkaBroker}: a crash test must be able to SIGKILL the broker and start
 * it again on the same port with the same log directories, the way a broker host fails. The test
 * kit picks new ports and a new directory on every start, and dies with the JVM that runs it. This
 * class formats {@code DIR} on its first start only, so a restart recovers the logs a SIGKILL left
 * (committed offsets, transactions, records), and it runs the production entry point
 * ({@code kafka.Kafka}) with the single-node settings of {@link BrokerSettings}.
 *
 * <p>It blocks until the process is killed; a launcher knows it is ready when a client connects
 * on {@code localhost:PORT}.
 */
public final class StandaloneKafkaBroker {
    /** Fixed, so a restart on the same directory finds the cluster it formatted. */
    static final String CLUSTER_ID = "c2x1aWNlLWNoYW9zLTAwMQ";

    private StandaloneKafkaBroker() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: StandaloneKafkaBroker DIR PORT CONTROLLER_PORT");
            System.exit(2);
        }
        Path directory = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        int controllerPort = Integer.parseInt(args[2]);
        Files.createDirectories(directory);
        Path properties = directory.resolve("server.properties");
        write(properties, serverProperties(directory.resolve("logs"), port, controllerPort));
        if (!Files.exists(directory.resolve("logs").resolve("meta.properties"))) {
            int formatted = kafka.tools.StorageTool.execute(new String[] {
                "format", "--cluster-id", CLUSTER_ID, "--config", properties.toString(),
                "--ignore-formatted"}, new PrintStream(OutputStream.nullOutputStream()));
            if (formatted != 0) {
                System.err.println("formatting " + directory + " failed with " + formatted);
                System.exit(1);
            }
        }
        kafka.Kafka.main(new String[] {properties.toString()});
    }

    /** The server properties of one combined node listening on {@code port} (clients). */
    static Map<String, String> serverProperties(Path logs, int port, int controllerPort) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@localhost:" + controllerPort);
        p.put("listeners", "PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", logs.toString());
        p.putAll(BrokerSettings.singleNode());
        return p;
    }

    private static void write(Path file, Map<String, String> settings) {
        Properties properties = new Properties();
        properties.putAll(settings);
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "written by StandaloneKafkaBroker");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
