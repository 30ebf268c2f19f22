package io.sluice.embedded;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local Redis Cluster of N masters and no replicas, each a {@link RedisServerProcess} with
 * cluster mode on, joined with {@code CLUSTER ADDSLOTS} and {@code CLUSTER MEET} (no
 * {@code redis-cli} needed).
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

    /** Three masters: the smallest cluster {@code redis-cli --cluster create} accepts, kept as the floor. */
    public static final int DEFAULT_MASTERS = 3;

    /** Redis Cluster's fixed number of hash slots. */
    static final int SLOTS = 16_384;
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
     * @throws IllegalStateException if a node does not start or the cluster does not form; nothing
     *     is left running
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
                + URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20") + "@");
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

    /**
     * Forms the cluster the way {@code redis-cli --cluster create} does, with plain commands so
     * that only {@code redis-server} is needed: each node takes its share of the hash slots
     * ({@code CLUSTER ADDSLOTS}) and a distinct config epoch ({@code CLUSTER SET-CONFIG-EPOCH},
     * so no epoch collision has to be resolved later), then the first node meets the others
     * ({@code CLUSTER MEET}); the gossip spreads the rest.
     */
    private void create() {
        List<int[]> ranges = slotRanges(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            int port = nodes.get(i).port();
            call(port, addSlots(ranges.get(i)));
            call(port, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        int first = nodes.get(0).port();
        for (RedisServerProcess other : nodes.subList(1, nodes.size())) {
            call(first, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(other.port()));
        }
    }

    /**
     * The hash slots of {@code masters} masters, spread evenly: range i is
     * {@code [start, end)} = {@code [i * 16384 / masters, (i + 1) * 16384 / masters)}, so the
     * ranges are contiguous, disjoint and cover every slot.
     */
    static List<int[]> slotRanges(int masters) {
        List<int[]> ranges = new ArrayList<>();
        for (int i = 0; i < masters; i++) {
            ranges.add(new int[] {i * SLOTS / masters, (i + 1) * SLOTS / masters});
        }
        return ranges;
    }

    private static String[] addSlots(int[] range) {
        String[] command = new String[2 + range[1] - range[0]];
        command[0] = "CLUSTER";
        command[1] = "ADDSLOTS";
        for (int slot = range[0]; slot < range[1]; slot++) {
            command[2 + slot - range[0]] = Integer.toString(slot);
        }
        return command;
    }

    private void call(int port, String... command) {
        try {
            Resp.call(port, password, command);
        } catch (IOException e) {
            throw new IllegalStateException("Forming Redis Cluster " + uri() + ": " + command[0] + " " + command[1]
                    + " on node " + port + " failed: " + e.getMessage(), e);
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
}
