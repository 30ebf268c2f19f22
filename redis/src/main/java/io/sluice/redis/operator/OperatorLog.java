package io.sluice.redis.operator;

import io.sluice.config.SluiceConfig;
import io.sluice.redis.operator.OperatorEntry.Key;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A role's reading of the operator topic: from its start at once, then every record as it comes,
 * into an {@link OperatorView}, on a thread of its own. No consumer group and no commits: every
 * process reads the whole topic (compacted, so about one record per setting in force).
 *
 * <p>{@link #read()} is true once the records there were when reading began have all been
 * applied: only then is the view the operators' state, and may seed a cache. While Kafka does not
 * answer, the view keeps what it read (a pause must not lift because of an outage); while the
 * topic does not exist (a deployment not yet upgraded with {@code sluice topics create}), the
 * view is empty and counts as read (there is nothing to wait for), it says so once, and looks
 * again every {@link #RETRY}.
 */
public final class OperatorLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OperatorLog.class);
  /** How often a missing topic is looked for again. */
  static final Duration RETRY = Duration.ofSeconds(1);
  private static final Duration POLL = Duration.ofMillis(200);

  private final Consumer<byte[], byte[]> consumer;
  private final String topic;
  private final OperatorView view = new OperatorView();
  private final CountDownLatch readLatch = new CountDownLatch(1);
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean stopping;

  OperatorLog(Consumer<byte[], byte[]> consumer, String topic) {
    this.consumer = consumer;
    this.topic = topic;
    this.thread = new Thread(this::run, "sluice-operator-log");
    this.thread.setDaemon(true);
  }

  /** Starts reading the operator topic of {@code config}'s cluster. */
  public static OperatorLog follow(SluiceConfig config) {
    Map<String, Object> props = config.kafka().clientProperties(Map.of(
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        // Never created by a reader: made with the broker's defaults it would not be compacted.
        ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-operator-log-"
            + UUID.randomUUID().toString().substring(0, 8)));
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    OperatorLog log = new OperatorLog(new KafkaConsumer<>(props, new ByteArrayDeserializer(),
        new ByteArrayDeserializer()), new Topics(config.kafka().topicPrefix(), config.ladder()).operator());
    log.thread.start();
    return log;
  }

  /** What has been read. */
  public OperatorView view() {
    return view;
  }

  /** True once the topic has been read to the end it had when reading began. */
  public boolean read() {
    return readLatch.getCount() == 0;
  }

  /** Waits up to {@code patience} for {@link #read()}; returns it. */
  public boolean awaitRead(Duration patience) throws InterruptedException {
    return readLatch.await(patience.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void run() {
    boolean saidMissing = false;
    try {
      List<TopicPartition> partitions = List.of();
      while (!stopping && partitions.isEmpty()) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
        partitions = infos == null ? List.of()
            : infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        if (partitions.isEmpty()) {
          if (!saidMissing) {
            LOG.warn("operator state: topic {} does not exist (run `sluice topics create`); pauses "
                + "and tenant records live only in Redis until it does", topic);
            saidMissing = true;
            // Nothing to wait for: a topic that does not exist holds nothing.
            readLatch.countDown();
          }
          closed.await(RETRY.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
      if (stopping) {
        return;
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      while (!stopping) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
          Key.parse(r.key()).ifPresent(key -> view.apply(key, OperatorEntry.decode(key, r.value())));
        }
        if (readLatch.getCount() > 0 && ends.entrySet().stream()
            .allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
          LOG.info("operator state: read {} ({} records)", topic, view.applied());
          readLatch.countDown();
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("operator state: reading {} failed; what was read stays in force", topic, e);
    } finally {
      consumer.close(Duration.ofSeconds(2));
    }
  }

  @Override
  public void close() {
    stopping = true;
    closed.countDown();
    consumer.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
