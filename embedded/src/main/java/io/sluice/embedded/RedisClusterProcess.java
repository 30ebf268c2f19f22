package io.sluice.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Redis Cluster of N masters and no replicas, each a {@link RedisServerProcess} with
 * cluster mode on, joined by {@code redis-cli --cluster create}.
 *
 * <p>Why: Sluice's Lua scripts touch one key per call and its keys are hash-tagged so that a
 * cluster keeps each bucket in one slot; only a real cluster proves that no script crosses slots
 * (Redis answers {@code CROSSSLOT} otherwise). Each node listens on P and on its cluster bus
 * P + 10000, both on 127.0.0.1.
 *
 * <p>{@link #start(int)} returns once every node reports {@code cluster_state:ok} and knows all
 * the others, so a cluster client can load the topology immediately.
 */
public final class RedisClusterProcess implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisClusterProcess.class);

    /** Three masters: the smallest cluster {@code redis-cli --cluster create} accepts. */
    public static final int DEFAULT_MASTERS = 3;

    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLUSTER_OK_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServerProcess> nodes;
    /** The password every node requires of the default user; null for none. */
    private final String password;

    private RedisClusterProcess(List<RedisServerProcess> nodes, String password) {
        this.nodes = List.copyOf(nodes);
        this.password = password;
    }

    /** Starts a cluster of {@value #DEFAULT_MASTERS} masters. */
    public static RedisClusterProcess start() {
        return start(DEFAULT_MASTERS);
    }

    /**
     * Starts a cluster of {@code masters} masters (at least 3) without replicas, the hash slots
     * spread evenly, and waits until it is usable.
     *
     * @throws IllegalStateException if a node or {@code redis-cli} fails; nothing is left running
     */
    public static RedisClusterProcess start(int masters) {
        return start(masters, null);
    }

    /**
     * A cluster of {@value #DEFAULT_MASTERS} masters whose nodes all require {@code password}
     * ({@code requirepass}, and {@code masterauth} for the cluster's own links). {@link #uri()}
     * stays without it; {@link #uriWithPassword()} has it.
     */
    public static RedisClusterProcess startWithPassword(String password) {
        return start(DEFAULT_MASTERS, password);
    }

    private static RedisClusterProcess start(int masters, String password) {
        if (masters < DEFAULT_MASTERS) {
            throw new IllegalArgumentException("A Redis Cluster needs at least " + DEFAULT_MASTERS
                    + " masters, not " + masters);
        }
        long startNanos = System.nanoTime();
        List<RedisServerProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServerProcess.startOnFreePort(FreePorts::loopbackWithClusterBus, port -> List.of(
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes-" + port + ".conf",
                        "--cluster-node-timeout", "5000"), password));
            }
            RedisClusterProcess cluster = new RedisClusterProcess(nodes, password);
            cluster.create();
            cluster.awaitClusterOk();
            log.info("Redis Cluster ready on {} in {} ms", cluster.uri(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisServerProcess::closeNow);
            throw e;
        }
    }

    /** The nodes' ports on 127.0.0.1, in the order they were started. */
    public List<Integer> ports() {
        return nodes.stream().map(RedisServerProcess::port).collect(Collectors.toUnmodifiableList());
    }

    /**
     * {@code redis-cluster://127.0.0.1:P1,127.0.0.1:P2,...}, the form Sluice's {@code redis.uri}
     * setting takes for a cluster.
     */
    public String uri() {
        return nodes.stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(",", "redis-cluster://", ""));
    }

    /**
     * {@code redis-cluster://:<password>@127.0.0.1:P1,...} (percent-encoded) for a cluster
     * started with a password; the same as {@link #uri()} without one.
     */
    public String uriWithPassword() {
        return password == null ? uri() : uri().replace("redis-cluster://", "redis-cluster://:"
                + java.net.URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20") + "@");
    }

    /** Stops every node and deletes their directories. Idempotent. */
    @Override
    public void close() {
        nodes.forEach(RedisServerProcess::closeNow);
    }

    @Override
    public String toString() {
        return "Redis Cluster " + uri();
    }

    private void create() {
        Path cli = RedisBinaries.cli(RedisBinaries.server());
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        ports().forEach(port -> command.add("127.0.0.1:" + port));
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path output = nodes.get(0).directory().resolve("cluster-create.log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            if (password != null) {
                builder.environment().put("REDISCLI_AUTH", password); // not on the command line
            }
            Process process = builder
                    .redirectErrorStream(true)
                    .redirectOutput(Redirect.to(output.toFile()))
                    .start();
            ChildProcesses.register(process);
            try {
                if (!process.waitFor(CREATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("redis-cli --cluster create did not finish within "
                            + CREATE_TIMEOUT.toSeconds() + " s. Its output:\n" + read(output));
                }
                if (process.exitValue() != 0) {
                    throw new IllegalStateException("redis-cli --cluster create failed with exit code "
                            + process.exitValue() + ". Its output:\n" + read(output));
                }
            } finally {
                process.destroyForcibly();
                ChildProcesses.unregister(process);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + cli, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating the Redis Cluster", e);
        }
    }

    /**
     * Waits until every node says {@code cluster_state:ok} and knows every other node: only then
     * does any node a client picks as a seed return the full topology.
     */
    private void awaitClusterOk() {
        Deadline deadline = Deadline.after(CLUSTER_OK_TIMEOUT);
        String lastInfo = "";
        while (true) {
            boolean allOk = true;
            for (RedisServerProcess node : nodes) {
                lastInfo = clusterInfo(node.port(), password);
                if (!isHealthy(lastInfo)) {
                    lastInfo = "node " + node.port() + ":\n" + lastInfo;
                    allOk = false;
                    break;
                }
            }
            if (allOk) {
                return;
            }
            if (deadline.expired()) {
                throw new IllegalStateException("Redis Cluster " + uri() + " did not reach cluster_state:ok within "
                        + deadline.timeout().toSeconds() + " s. Last CLUSTER INFO from " + lastInfo);
            }
            deadline.pause();
        }
    }

    private boolean isHealthy(String clusterInfo) {
        return clusterInfo.contains("cluster_state:ok")
                && clusterInfo.contains("cluster_known_nodes:" + nodes.size() + "\r\n");
    }

    private static String clusterInfo(int port, String password) {
        try {
            return Resp.call(port, password, "CLUSTER INFO");
        } catch (IOException e) {
            return "(no answer: " + e.getMessage() + ")";
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(could not read " + file + ": " + e + ")";
        }
    }
}
