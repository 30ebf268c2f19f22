package io.sluice.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * One Kafka node in KRaft combined mode (broker and controller in one) on localhost, set up the
 * way the Kafka distribution sets up a node: a {@code server.properties} file, then
 * {@code kafka-storage format} ({@link kafka.tools.StorageTool}) on its log directory. Shared by
 * the broker that runs in this JVM ({@link InJvmKafkaBroker}) and the one that runs as a process
 * of its own ({@link StandaloneKafkaBroker}), so both are the same node.
 */
final class CombinedKraftNode {

    /**
     * Fixed, so a restart on the same directory finds the cluster it formatted (a broker refuses a
     * log directory formatted for another cluster id).
     */
    static final String CLUSTER_ID = "c2x1aWNlLWNoYW9zLTAwMQ";
    static final String PROPERTIES_FILE = "server.properties";

    private CombinedKraftNode() {
    }

    /**
     * The server properties of a node listening on {@code port} (clients) and
     * {@code controllerPort} (its own quorum), its data in {@code logs}, with the single-node
     * settings of {@link BrokerSettings}.
     */
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

    /** Writes {@code settings} to {@value #PROPERTIES_FILE} in {@code directory} and returns the file. */
    static Path writeProperties(Path directory, Map<String, String> settings) {
        Path file = directory.resolve(PROPERTIES_FILE);
        Properties properties = new Properties();
        properties.putAll(settings);
        try {
            Files.createDirectories(directory);
            try (OutputStream out = Files.newOutputStream(file)) {
                properties.store(out, "written by " + CombinedKraftNode.class.getName());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
        return file;
    }

    /**
     * {@code kafka-storage format --cluster-id CLUSTER_ID --config FILE --ignore-formatted}: writes
     * {@code meta.properties} and the bootstrap metadata into the log directories named in
     * {@code propertiesFile}; a directory already formatted is left as it is, so a restart keeps
     * the records a crash left.
     *
     * @throws IllegalStateException with the tool's output if it fails
     */
    static void format(Path propertiesFile) {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int exitCode;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            exitCode = kafka.tools.StorageTool.execute(new String[] {
                "format", "--cluster-id", CLUSTER_ID, "--config", propertiesFile.toString(), "--ignore-formatted"}, out);
        } catch (Exception e) {
            throw new IllegalStateException("kafka-storage format " + propertiesFile + " failed: " + e.getMessage()
                    + "\n" + output.toString(StandardCharsets.UTF_8), e);
        }
        if (exitCode != 0) {
            throw new IllegalStateException("kafka-storage format " + propertiesFile + " exited with " + exitCode
                    + ":\n" + output.toString(StandardCharsets.UTF_8));
        }
    }
}
