package io.sluice.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A single Kafka node (KRaft, broker and controller combined) as a process of its own:
 * {@code java -cp sluice.jar io.sluice.embedded.StandaloneKafkaBroker DIR PORT CONTROLLER_PORT}.
 *
 * <p>Why beside {@link InJvmKafkaBroker}: a crash test must be able to SIGKILL the broker and start
 * it again on the same port with the same log directories, the way a broker host fails. The
 * in-JVM broker picks new ports and a new directory on every start, and dies with the JVM that
 * runs it. This class formats {@code DIR} on its first start only, so a restart recovers the logs
 * a SIGKILL left (committed offsets, transactions, records), and it runs the production entry
 * point ({@code kafka.Kafka}) on the node of {@link CombinedKraftNode}.
 *
 * <p>It blocks until the process is killed; a launcher knows it is ready when a client connects
 * on {@code localhost:PORT}.
 */
public final class StandaloneKafkaBroker {

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
        Path properties = CombinedKraftNode.writeProperties(directory,
                CombinedKraftNode.serverProperties(directory.resolve("logs"), port, controllerPort));
        if (!Files.exists(directory.resolve("logs").resolve("meta.properties"))) {
            try {
                CombinedKraftNode.format(properties);
            } catch (IllegalStateException e) {
                System.err.println(e.getMessage());
                System.exit(1);
            }
        }
        kafka.Kafka.main(new String[] {properties.toString()});
    }
}
