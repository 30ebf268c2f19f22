package io.sluice.relay;

import io.sluice.testkit.FakeClock;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.trace.StageTracer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A {@link Relay} on a {@link MockConsumer} and a {@link MockProducer}, driven on the test's own
 * thread by a script: each {@code poll} of the relay runs the next step, then hands the relay
 * every record of the partition's log from its current position (the mock consumer forgets what it
 * returned once, a broker does not: a relay that seeks back must read the records again). The last
 * step closes the relay, so {@link #run} returns. Nothing here waits or sleeps: every step runs at
 * a known point of the relay's loop.
 */
final class ScriptedRelay {
  static final Topics TOPICS = new Topics("t.", List.of(Duration.ofMillis(250), Duration.ofSeconds(1)));
  static final TopicPartition ONE_SECOND = new TopicPartition(TOPICS.delay(Duration.ofSeconds(1)), 0);
  static final TopicPartition ONE_SECOND_1 = new TopicPartition(TOPICS.delay(Duration.ofSeconds(1)), 1);

  final FakeClock clock = FakeClock.atMillis(1_000_000);
  /** Whether Redis's clock was sampled (the relay's {@code mayRelease}); a step may change it. */
  final boolean[] onRedisTime = {true};
  final RecordingConsumer consumer = new RecordingConsumer();
  final FailingProducer producer = new FailingProducer();
  final List<String> deadLetters = new ArrayList<>();
  /** How late each record left for its return topic, in order. */
  final List<Long> lateness = new ArrayList<>();
  /** The partitions the relay gets first (both by default); a step may rebalance to others. */
  private List<TopicPartition> firstAssignment = List.of(ONE_SECOND, ONE_SECOND_1);
  final Relay relay;
  private final List<ConsumerRecord<byte[], byte[]>> log = new ArrayList<>();
  private final Deque<Runnable> steps = new ArrayDeque<>();
  private Throwable died;

  ScriptedRelay() {
    this(StageTracer.OFF);
  }

  /** A relay whose releases and hops are spans of {@code tracer}. */
  ScriptedRelay(StageTracer tracer) {
    relay = new Relay(consumer, producer, TOPICS, clock, () -> onRedisTime[0], new RelayListener() {
      @Override
      public void deadLettered(String detail) {
        deadLetters.add(detail);
      }

      @Override
      public void released(String returnTo, long lateMillis) {
        lateness.add(lateMillis);
      }
    }, tracer);
  }

  /** Appends a record to the 1 s step's partition 0 (placed at {@code placedAt}). */
  long append(String id, long placedAt, Headers headers) {
    return append(ONE_SECOND, bytes(id), bytes(id), placedAt, headers);
  }

  long append(TopicPartition tp, byte[] key, byte[] value, long placedAt, Headers headers) {
    long offset = log.stream().filter(r -> r.partition() == tp.partition() && r.topic().equals(tp.topic())).count();
    log.add(new ConsumerRecord<>(tp.topic(), tp.partition(), offset, placedAt, TimestampType.CREATE_TIME,
        key == null ? -1 : key.length, value == null ? -1 : value.length, key, value, headers, Optional.empty()));
    return offset;
  }

  /**
   * Starts this relay from {@code commits}, as the group's commits it finds when it gets the
   * partitions (an earlier relay's last transaction).
   */
  ScriptedRelay startingFrom(Map<TopicPartition, OffsetAndMetadata> commits) {
    consumer.seed(commits);
    return this;
  }

  /** The relay gets only {@code partitions} at first (a step may give it more). */
  ScriptedRelay assigningFirst(List<TopicPartition> partitions) {
    firstAssignment = List.copyOf(partitions);
    return this;
  }

  /** The offsets and metadata of the last commit covering {@code tp}, or null. */
  OffsetAndMetadata lastCommit(TopicPartition tp) {
    List<Map<TopicPartition, OffsetAndMetadata>> all = commits();
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).containsKey(tp)) {
        return all.get(i).get(tp);
      }
    }
    return null;
  }

  /** Headers as the gate writes them for a paid record returning to ready. */
  static Headers paid(long notBefore) {
    Headers headers = new RecordHeaders();
    HeaderValues.put(headers, HeaderNames.NOT_BEFORE, notBefore);
    HeaderValues.put(headers, HeaderNames.RETURN_TO, TOPICS.ready());
    HeaderValues.put(headers, HeaderNames.PAID, "true");
    return headers;
  }

  /**
   * The next poll runs {@code step} first. A partition the relay resumes after a poll returns its
   * records with the poll after, so a release shows two steps after the clock reached it.
   */
  ScriptedRelay then(Runnable step) {
    steps.add(step);
    return this;
  }

  /**
   * Runs the relay until the script has run out: one more poll for what the last step let through,
   * then a poll that closes the relay (its wakeup ends that poll, so that one returns nothing).
   */
  void run() {
    steps.add(() -> {});
    steps.add(relay::close);
    consumer.updateBeginningOffsets(Map.of(ONE_SECOND, 0L, ONE_SECOND_1, 0L));
    consumer.schedulePollTask(() -> {
      consumer.rebalance(firstAssignment);
      // A real consumer starts a partition at its group's commit; the mock starts it at the beginning.
      consumer.seeded.forEach((tp, commit) -> consumer.seek(tp, commit.offset()));
      feed();
    });
    for (Runnable step : steps) {
      consumer.schedulePollTask(() -> {
        step.run();
        feed();
      });
    }
    try {
      relay.run();
    } catch (AssertionError e) {
      throw e; // a step's check failed
    } catch (Throwable e) {
      died = e;
    }
  }

  /** What ended the relay's loop other than close; null if nothing did. */
  Throwable died() {
    return died;
  }

  /** The highest offset a commit of the relay ever covered on {@code tp} (exclusive), or 0. */
  long highestCommitted(TopicPartition tp) {
    return commits().stream().filter(c -> c.containsKey(tp))
        .mapToLong(c -> c.get(tp).offset()).max().orElse(0);
  }

  /**
   * The offsets of each committed transaction, in order (sent with the transaction, for the
   * consumer's group), and any the consumer committed by itself (the relay should commit none).
   */
  List<Map<TopicPartition, OffsetAndMetadata>> commits() {
    List<Map<TopicPartition, OffsetAndMetadata>> all = new ArrayList<>(consumer.commits);
    for (Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup : producer.consumerGroupOffsetsHistory()) {
      all.addAll(byGroup.values());
    }
    return all;
  }

  /**
   * Records a read_committed reader sees, in order: those of committed transactions. A record
   * acknowledged in a transaction that was then aborted is not among them.
   */
  List<ProducerRecord<byte[], byte[]>> acknowledged() {
    return producer.history();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private void feed() {
    for (TopicPartition tp : consumer.assignment()) {
      long position = consumer.position(tp);
      for (ConsumerRecord<byte[], byte[]> r : log) {
        if (r.topic().equals(tp.topic()) && r.partition() == tp.partition() && r.offset() >= position) {
          consumer.addRecord(r);
        }
      }
    }
  }

  /** A consumer that remembers every commit, and whose {@code committed()} can be made to fail. */
  static final class RecordingConsumer extends MockConsumer<byte[], byte[]> {
    final List<Map<TopicPartition, OffsetAndMetadata>> commits = new ArrayList<>();
    final Map<TopicPartition, OffsetAndMetadata> seeded = new java.util.HashMap<>();
    RuntimeException committedFails;
    /** If set, {@link #committedFails} applies only to look-ups that include this partition. */
    TopicPartition committedFailsFor;
    /**
     * If set, a failing look-up holds the caller for its whole timeout on this clock, as a
     * consumer waiting for a coordinator that does not answer; each wait is also listed.
     */
    FakeClock blockedOn;
    final List<Duration> blocked = new ArrayList<>();

    RecordingConsumer() {
      super("earliest");
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
      commits.add(Map.copyOf(offsets));
      super.commitSync(offsets);
    }

    /**
     * The group's commits before this relay starts (not a commit of the relay's). Kept here: the
     * mock's own store drops the metadata of commits made before an assignment.
     */
    synchronized void seed(Map<TopicPartition, OffsetAndMetadata> offsets) {
      seeded.putAll(offsets);
    }

    @Override
    public synchronized Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
      if (fails(partitions)) {
        throw committedFails;
      }
      Map<TopicPartition, OffsetAndMetadata> found = new java.util.HashMap<>(super.committed(partitions));
      seeded.forEach((tp, commit) -> {
        if (partitions.contains(tp)) {
          found.put(tp, commit);
        }
      });
      return found;
    }

    @Override
    public synchronized Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
      if (fails(partitions) && blockedOn != null) {
        blockedOn.advance(timeout);
        blocked.add(timeout);
      }
      return committed(partitions);
    }

    private boolean fails(Set<TopicPartition> partitions) {
      return committedFails != null
          && (committedFailsFor == null || partitions.contains(committedFailsFor));
    }
  }

  /**
   * A transactional producer whose sends complete at {@code flush}: successfully, or, while
   * {@link #failing} is set, with that error (as a broker refusing or timing out the batch) for the
   * records {@link #failOnly} picks (all of them unless told). As a real one, it refuses to commit
   * a transaction in which a send failed (the transaction must be aborted), and counts aborts.
   */
  static final class FailingProducer extends MockProducer<byte[], byte[]> {
    RuntimeException failing;
    Predicate<ProducerRecord<byte[], byte[]>> failOnly = r -> true;
    /** Every record whose send succeeded, committed or not. */
    final List<ProducerRecord<byte[], byte[]>> acknowledged = new ArrayList<>();
    /** Each transaction committed with offsets: those offsets, and what was acknowledged by then. */
    final List<CommitSeen> commitsSeen = new ArrayList<>();
    int aborts;
    private Map<TopicPartition, OffsetAndMetadata> offsetsSent = Map.of();
    private boolean sendFailed;
    private final List<ProducerRecord<byte[], byte[]>> unsettled = new ArrayList<>();

    @Override
    public synchronized void commitTransaction() {
      if (sendFailed) {
        throw new org.apache.kafka.common.KafkaException(
            "Cannot execute transactional method because we are in an error state");
      }
      if (!offsetsSent.isEmpty()) {
        commitsSeen.add(new CommitSeen(offsetsSent, List.copyOf(acknowledged)));
        offsetsSent = Map.of();
      }
      super.commitTransaction();
    }

    @Override
    public synchronized void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
        org.apache.kafka.clients.consumer.ConsumerGroupMetadata groupMetadata) {
      super.sendOffsetsToTransaction(offsets, groupMetadata);
      offsetsSent = Map.copyOf(offsets);
    }

    @Override
    public synchronized void abortTransaction() {
      super.abortTransaction();
      offsetsSent = Map.of();
      sendFailed = false;
      aborts++;
    }

    FailingProducer() {
      super(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
        ProducerRecord<byte[], byte[]> record) {
      unsettled.add(record);
      return super.send(record);
    }

    @Override
    public synchronized void flush() {
      for (ProducerRecord<byte[], byte[]> r : unsettled) {
        if (failing != null && failOnly.test(r)) {
          errorNext(failing);
          sendFailed = true;
        } else {
          completeNext();
          acknowledged.add(r);
        }
      }
      unsettled.clear();
    }
  }


  /**
   * A transaction's commit as the producer saw it when asked to commit: the offsets sent with it,
   * and every record acknowledged at that moment (of this transaction or earlier ones).
   */
  record CommitSeen(Map<TopicPartition, OffsetAndMetadata> offsets,
      List<ProducerRecord<byte[], byte[]>> acknowledgedBefore) {}
}
