package io.sluice.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/** A local three-master Redis Cluster that a cluster client can use right after start. */
class RedisClusterProcessIT {

    private static RedisClusterProcess cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcess.start(3);
    }

    @AfterAll
    static void stopClusterAndCheckNoNodeAnswers() {
        List<Integer> ports = cluster.ports();
        cluster.close();
        ports.forEach(port -> assertFalse(Resp.answersPing(port), "node " + port + " still answers"));
    }

    @Test
    void shouldReportClusterStateOkOnEveryNode() throws Exception {
        assertEquals(3, cluster.ports().size());
        for (int port : cluster.ports()) {
            String info = Resp.call(port, "CLUSTER INFO");
            assertTrue(info.contains("cluster_state:ok"), "node " + port + ":\n" + info);
            assertTrue(info.contains("cluster_slots_assigned:16384"), "node " + port + ":\n" + info);
        }
    }

    @Test
    void shouldDescribeItselfAsARedisClusterUri() {
        String expected = cluster.ports().stream().map(port -> "127.0.0.1:" + port)
                .collect(Collectors.joining(",", "redis-cluster://", ""));
        assertEquals(expected, cluster.uri());
    }

    @Test
    void shouldSetAndGetKeysOnDifferentMastersThroughLettuce() {
        List<String> keys = List.of("tenant-a", "tenant-b", "tenant-c", "tenant-d", "tenant-e", "tenant-f");
        List<RedisURI> seeds = cluster.ports().stream().map(port -> RedisURI.create("127.0.0.1", port)).toList();
        RedisClusterClient client = RedisClusterClient.create(seeds);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
            keys.forEach(key -> connection.sync().set(key, "value-of-" + key));

            keys.forEach(key -> assertEquals("value-of-" + key, connection.sync().get(key)));
            Set<Integer> masters = new HashSet<>();
            keys.forEach(key -> masters.add(
                    connection.getPartitions().getPartitionBySlot(SlotHash.getSlot(key)).getUri().getPort()));
            assertTrue(masters.size() > 1, "keys " + keys + " should spread over several masters, got " + masters);
        } finally {
            RedisServerProcessIT.shutdown(client);
        }
    }

    @Test
    void shouldSpreadEverySlotOverTheMastersOnce() {
        List<int[]> ranges = RedisClusterProcess.slotRanges(3);

        assertEquals(List.of("0-5461", "5461-10922", "10922-16384"),
                ranges.stream().map(range -> range[0] + "-" + range[1]).toList());
        for (int masters = 3; masters <= 7; masters++) {
            List<int[]> spread = RedisClusterProcess.slotRanges(masters);
            assertEquals(0, spread.get(0)[0]);
            assertEquals(RedisClusterProcess.SLOTS, spread.get(masters - 1)[1]);
            for (int i = 1; i < masters; i++) {
                assertEquals(spread.get(i - 1)[1], spread.get(i)[0], "ranges of " + masters + " masters must touch");
            }
        }
    }

    @Test
    void shouldRefuseFewerThanThreeMasters() {
        assertThrows(IllegalArgumentException.class, () -> RedisClusterProcess.start(2));
    }
}
