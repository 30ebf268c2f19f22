package io.sluice.app.admin;

import io.sluice.config.SluiceConfig;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.Topics;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer lag of every Sluice group on every topic it reads, from the Kafka Admin API: what
 * waits in inbound and regate (the gate), in each delay step (the relay) and in ready (the
 * dispatchers). Works whether or not any of those roles runs: it reads the groups' committed
 * offsets and the topics' ends, nothing from the roles.
 *
 * <p>A partition a group never committed counts everything it retains (end minus beginning):
 * nothing has been taken from it yet. Kafka Streams commits with exactly-once transactions and
 * the dispatchers commit only settled records, so a lag counts records not yet handed on; a
 * record of an aborted transaction may count until the next commit passes it (an over-estimate by
 * at most a transaction's records).
 */
final class ConsumerLag {
  /** One group's lag on one topic, summed over its partitions. */
  public record Lag(String group, String topic, long records) {}

  /** Longest wait for each Admin request. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ConsumerLag() {}

  /** Each Sluice group and the topics it reads. */
  public static Map<String, List<String>> groups(SluiceConfig config) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    Map<String, List<String>> groups = new LinkedHashMap<>();
    groups.put(config.gate().applicationId(), List.of(topics.inbound(), topics.regate()));
    groups.put(config.kafka().topicPrefix() + RelayService.GROUP_SUFFIX, topics.delays());
    groups.put(config.dispatcher().groupId(), topics.readyTopics());
    return groups;
  }

  /**
   * The lag per group and topic: {@code end - committed}, or {@code end - beginning} where the
   * group has no commit, never below 0.
   */
  static long lag(long end, Long committed, long beginning) {
    long from = committed == null ? beginning : Math.max(committed, beginning);
    return Math.max(0, end - from);
  }

  /**
   * Reads every group's lag. Topics that do not exist are left out.
   *
   * @throws java.io.UncheckedIOException when Kafka does not answer within {@link #TIMEOUT} per request
   */
  public static List<Lag> read(Admin admin, Map<String, List<String>> groups) {
    try {
      List<String> topics = groups.values().stream().flatMap(List::stream).distinct().toList();
      Map<String, TopicDescription> described = new HashMap<>();
      for (var e : admin.describeTopics(topics).topicNameValues().entrySet()) {
        try {
          described.put(e.getKey(), e.getValue().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException missing) {
          // No such topic (not created, or another prefix): nothing waits there.
        }
      }
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      Map<TopicPartition, OffsetSpec> starts = new HashMap<>();
      described.values().forEach(d -> d.partitions().forEach(p -> {
        TopicPartition tp = new TopicPartition(d.name(), p.partition());
        ends.put(tp, OffsetSpec.latest());
        starts.put(tp, OffsetSpec.earliest());
      }));
      var end = admin.listOffsets(ends).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      var start = admin.listOffsets(starts).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
      groups.keySet().forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
      var committed = admin.listConsumerGroupOffsets(specs);
      List<Lag> lags = new ArrayList<>();
      for (Map.Entry<String, List<String>> g : groups.entrySet()) {
        Map<TopicPartition, OffsetAndMetadata> offsets = committed.partitionsToOffsetAndMetadata(
            g.getKey()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, Long> byTopic = new TreeMap<>();
        for (String topic : g.getValue()) {
          if (!described.containsKey(topic)) {
            continue;
          }
          long sum = 0;
          for (var p : described.get(topic).partitions()) {
            TopicPartition tp = new TopicPartition(topic, p.partition());
            OffsetAndMetadata c = offsets == null ? null : offsets.get(tp);
            sum += lag(end.get(tp).offset(), c == null ? null : c.offset(), start.get(tp).offset());
          }
          byTopic.put(topic, sum);
        }
        byTopic.forEach((topic, n) -> lags.add(new Lag(g.getKey(), topic, n)));
      }
      return lags;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted"));
    } catch (ExecutionException | TimeoutException e) {
      throw new UncheckedIOException(new IOException(
          "Kafka did not answer the lag's requests: " + e.getCause(), e));
    }
  }
}
