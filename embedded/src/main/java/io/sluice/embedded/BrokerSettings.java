package io.sluice.embedded;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The broker settings that make one node behave like a small production cluster for Sluice, shared
 * by the in-JVM and the container broker so both behave the same.
 *
 * <ul>
 *   <li>Internal topics (consumer offsets, transaction state, share-group state) with replication
 *       factor 1 and min ISR 1: the defaults (3 and 2) can never be met by one node, and then
 *       consumer groups, transactions and {@code exactly_once_v2} hang instead of failing.</li>
 *   <li>One partition for each internal topic: the defaults (50) cost seconds when the first
 *       group or transactional producer makes the broker create and load them.</li>
 *   <li>No initial rebalance delay: the default 3 s delays every test's first consumer.</li>
 *   <li>No automatic topic creation, as in production: Sluice's {@code topics} command creates
 *       topics with their intended partitions, and a test must do the same.</li>
 *   <li>Small log segments and indexes: tests write little and create many partitions, and each
 *       partition maps its index files in memory at their maximum size.</li>
 *   <li>A small log cleaner buffer: the broker allocates the whole buffer (128 MiB by default) on
 *       the heap when it starts, and a node inside a test JVM or the demo compacts only the few
 *       kilobytes of its offsets and transaction state topics.</li>
 * </ul>
 */
public final class BrokerSettings {

    private BrokerSettings() {
    }

    public static Map<String, String> singleNode() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("offsets.topic.num.partitions", "1");
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("transaction.state.log.num.partitions", "1");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("default.replication.factor", "1");
        settings.put("min.insync.replicas", "1");
        settings.put("num.partitions", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.put("auto.create.topics.enable", "false");
        settings.put("log.segment.bytes", Integer.toString(8 * 1024 * 1024));
        settings.put("log.index.size.max.bytes", Integer.toString(1024 * 1024));
        settings.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        return settings;
    }

    /**
     * {@code log.segment.bytes} → {@code KAFKA_LOG_SEGMENT_BYTES}: the environment variable form the
     * {@code apache/kafka} image turns back into a server property.
     */
    public static String environmentVariable(String property) {
        return "KAFKA_" + property.toUpperCase(Locale.ROOT).replace('.', '_');
    }
}
