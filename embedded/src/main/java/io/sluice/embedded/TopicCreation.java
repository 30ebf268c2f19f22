package io.sluice.embedded;

import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Idempotent topic creation that returns only when the topics are usable. {@code createTopics}
 * completes when the controller has accepted the topic, which can be before the broker's metadata
 * has it; a producer started in that gap sees {@code UNKNOWN_TOPIC_OR_PARTITION} warnings and
 * waits up to {@code max.block.ms}. Waiting here keeps tests fast and their logs clean.
 */
final class TopicCreation {

    static final Duration TIMEOUT = Duration.ofSeconds(30);
    /**
     * As {@code sluice topics create} makes it ({@link Topics}, the topic contract): the dead-letter
     * topic takes the broker's default limit plus 64 KiB, so the dead letter of an inbound value near
     * the limit fits.
     */
    private static final Map<String, String> DLQ_CONFIGS = Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
            String.valueOf(Topics.DLQ_MAX_MESSAGE_BYTES));

    /** As {@code sluice topics create} makes the operator topic: compacted, never deleted by age. */
    private static final Map<String, String> OPERATOR_CONFIGS = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.RETENTION_MS_CONFIG, "-1");

    private TopicCreation() {
    }

    static void create(Admin admin, Map<String, Integer> partitionsByTopic) {
        partitionsByTopic.forEach((name, partitions) -> {
            if (name == null || name.isBlank() || partitions == null || partitions < 1) {
                throw new IllegalArgumentException("A topic needs a name and at least one partition: "
                        + name + " → " + partitions);
            }
        });
        List<NewTopic> newTopics = new ArrayList<>();
        partitionsByTopic.forEach((name, partitions) ->
                newTopics.add(new NewTopic(name, Optional.of(partitions), Optional.empty())
                        .configs(name.endsWith("dlq") ? DLQ_CONFIGS
                                : name.endsWith("operator") ? OPERATOR_CONFIGS : Map.of())));
        admin.createTopics(newTopics).values().forEach(TopicCreation::ignoreIfExists);
        awaitLeaders(admin, partitionsByTopic);
    }

    private static void ignoreIfExists(String name, KafkaFuture<Void> creation) {
        try {
            creation.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("Could not create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not confirm creating topic " + name + " within "
                    + TIMEOUT.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic " + name, e);
        }
    }

    private static void awaitLeaders(Admin admin, Map<String, Integer> partitionsByTopic) {
        Deadline deadline = Deadline.after(TIMEOUT);
        String notReady;
        do {
            notReady = firstNotReady(admin, partitionsByTopic);
            if (notReady == null) {
                return;
            }
            deadline.pause();
        } while (!deadline.expired());
        throw new IllegalStateException("Topic " + notReady + " was created but the broker's metadata did not show"
                + " a leader for each partition within " + TIMEOUT.toSeconds() + " s");
    }

    /** The first topic that is not usable yet, or null when all are. */
    private static String firstNotReady(Admin admin, Map<String, Integer> partitionsByTopic) {
        Map<String, TopicDescription> descriptions;
        try {
            descriptions = admin.describeTopics(partitionsByTopic.keySet()).allTopicNames()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return partitionsByTopic.keySet().iterator().next();
            }
            throw new IllegalStateException("Could not describe topics " + partitionsByTopic.keySet() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            return partitionsByTopic.keySet().iterator().next();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for topics", e);
        }
        for (Map.Entry<String, Integer> wanted : partitionsByTopic.entrySet()) {
            TopicDescription description = descriptions.get(wanted.getKey());
            if (description == null) {
                return wanted.getKey();
            }
            int actual = description.partitions().size();
            if (actual != wanted.getValue()) {
                throw new IllegalStateException("Topic " + wanted.getKey() + " already exists with " + actual
                        + " partitions, not " + wanted.getValue());
            }
            for (TopicPartitionInfo partition : description.partitions()) {
                if (partition.leader() == null || partition.leader().isEmpty()) {
                    return wanted.getKey();
                }
            }
        }
        return null;
    }
}
