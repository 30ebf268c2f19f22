package io.sluice.app.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.schemas.topic.WriterStamp;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sweeper against a real broker: it sees a transaction held open, leaves a live one alone
 * however long it has been open (its coordinator still owes the partition a marker), an abort it
 * writes moves the partition's last stable offset to the end, and a transaction its coordinator
 * committed keeps every record readable when the sweeper ends it.
 *
 * <p>The committed case is built as close to the real one as a single broker allows: a real
 * transactional producer's records left open on the partition (the broker cannot be made to
 * skip one partition's marker on cue), and the coordinator's answer replaced by the one it gave
 * in the chaos run, {@code COMPLETE_COMMIT} with no partitions. Before the sweeper wrote records
 * again, its abort made those records unreadable for good. Only that transaction's records are
 * written again: a dispatcher's retry behind it (written once, by a producer with no transaction)
 * was copied a second time before (issue 34, 4), a second call of its event.
 */
@ExtendWith(RealServers.class)
class AdminTransactionsViewIT {
  private static final String LIVE = "hanging-it.live";
  private static final String ABORTED = "hanging-it.aborted";
  private static final String COMMITTED = "hanging-it.committed";
  private static final SluiceTransactionalIds OURS =
      new SluiceTransactionalIds("hanging-it-gate", "hanging-it.", "relay");

  @BeforeAll
  static void topics(KafkaBroker kafka) {
    kafka.createTopics(Map.of(LIVE, 1, ABORTED, 1, COMMITTED, 1));
  }

  @Test
  void leavesALiveTransactionAloneHoweverLongItIsOpen(KafkaBroker kafka) throws Exception {
    TopicPartition partition = new TopicPartition(LIVE, 0);
    try (AdminTransactionsView view = view(kafka);
        KafkaProducer<String, String> producer = holdingOpen(kafka, LIVE, "v")) {
      Recorded recorded = new Recorded();
      HangingTransactionSweeper sweeper = new HangingTransactionSweeper(view, List.of(LIVE),
          Duration.ZERO, Clock.systemUTC(), OURS, recorded);

      List<OpenTransaction> open = view.open(List.of(LIVE));
      assertEquals(1, open.size(), () -> "open: " + open);
      assertEquals(partition, open.get(0).partition());
      CoordinatorView coordinator = view.coordinators(Set.of(open.get(0).producerId()))
          .get(open.get(0).producerId());
      assertEquals(TransactionState.ONGOING, coordinator.state());
      assertTrue(coordinator.owesMarkerTo(partition));
      assertEquals(List.of(), sweeper.sweep());
      assertEquals(List.of(), sweeper.sweep(), "open past the patience, and still live");

      producer.commitTransaction();
      assertEquals(List.of(), recorded.ended);
      assertEquals(List.of(), recorded.failed);
      // The commit returns once the coordinator prepared it; its marker follows.
      Await.until("the commit marker reaches the partition", Duration.ofSeconds(30),
          () -> openOn(view, LIVE).isEmpty());
    }
  }

  @Test
  void anAbortItWritesMovesTheLastStableOffsetToTheEnd(KafkaBroker kafka) throws Exception {
    TopicPartition partition = new TopicPartition(ABORTED, 0);
    try (Admin admin = kafka.admin();
        AdminTransactionsView view = view(kafka);
        KafkaProducer<String, String> producer = holdingOpen(kafka, ABORTED, "v")) {
      OpenTransaction open = view.open(List.of(ABORTED)).get(0);
      assertTrue(stable(admin, partition) <= open.startOffset(), "held back before the abort");

      view.abort(open);

      assertEquals(List.of(), view.open(List.of(ABORTED)));
      assertEquals(end(admin, partition), stable(admin, partition));
    }
  }

  @Test
  void everyRecordOfATransactionItsCoordinatorCommittedIsReadableAfterTheSweep(KafkaBroker kafka)
      throws Exception {
    TopicPartition partition = new TopicPartition(COMMITTED, 0);
    List<String> committed = List.of("c-1", "c-2", "c-3", "c-4", "c-5");
    try (Admin admin = kafka.admin();
        AdminTransactionsView real = view(kafka);
        KafkaProducer<String, String> producer = holdingOpen(kafka, COMMITTED,
            committed.toArray(String[]::new))) {
      // Other writers' records after the open transaction's first offset: one stamped by
      // another of Sluice's producers (its own commit decides it: not written again), and a
      // retry as the dispatcher writes it, idempotent with no transaction and no stamp (readable
      // once the transaction ends, whatever its end: not written again either).
      try (KafkaProducer<String, String> other = holdingOpen(kafka, COMMITTED, "other-1")) {
        other.commitTransaction();
      }
      try (KafkaProducer<String, String> dispatcher = dispatcherLike(kafka)) {
        dispatcher.send(new ProducerRecord<>(COMMITTED, 0, "k", "retry-1")).get();
      }
      assertEquals(List.of(), readCommitted(kafka, partition, end(admin, partition)),
          "held back: read_committed readers stand at the open transaction");
      Recorded recorded = new Recorded();
      HangingTransactionSweeper sweeper = new HangingTransactionSweeper(
          new CoordinatorSays(real, TransactionState.COMPLETE_COMMIT), List.of(COMMITTED),
          Duration.ZERO, Clock.systemUTC(), OURS, recorded);

      assertEquals(1, sweeper.sweep().size(), () -> "failing: " + sweeper.failing());

      assertEquals(List.of(), real.open(List.of(COMMITTED)));
      assertEquals(end(admin, partition), stable(admin, partition));
      List<String> readable = readCommitted(kafka, partition, end(admin, partition));
      assertTrue(readable.containsAll(committed), () -> "readable: " + readable);
      assertEquals(1, readable.stream().filter("other-1"::equals).count(), readable::toString);
      assertEquals(1, readable.stream().filter("retry-1"::equals).count(), readable::toString);
      assertEquals(List.of(5L), recorded.writtenAgain, "the open transaction's records only");
    }
  }

  private static AdminTransactionsView view(KafkaBroker kafka) {
    return new AdminTransactionsView(kafka.admin(),
        Map.of("bootstrap.servers", kafka.bootstrapServers()), OURS.sweeper());
  }

  private static List<OpenTransaction> openOn(AdminTransactionsView view, String topic) {
    try {
      return view.open(List.of(topic));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static long stable(Admin admin, TopicPartition partition) throws Exception {
    return admin.listOffsets(Map.of(partition, OffsetSpec.latest()),
        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get().get(partition).offset();
  }

  private static long end(Admin admin, TopicPartition partition) throws Exception {
    return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).all().get()
        .get(partition).offset();
  }

  /** The values {@code read_committed} reads of {@code partition}, up to its stable offset. */
  private static List<String> readCommitted(KafkaBroker kafka, TopicPartition partition, long end)
      throws Exception {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new StringDeserializer(), new StringDeserializer());
        Admin admin = kafka.admin()) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long stable = stable(admin, partition);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(partition) < Math.min(stable, end)) {
        assertTrue(System.nanoTime() < deadline, "read_committed did not reach " + stable);
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
    }
    return values;
  }

  /**
   * A producer with a transaction open on {@code topic}'s partition 0 (timeout 60 s), stamping
   * its records as Sluice's producers do.
   */
  private static KafkaProducer<String, String> holdingOpen(KafkaBroker kafka, String topic,
      String... values) throws Exception {
    KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "hanging-it.relay-" + UUID.randomUUID(),
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000,
        ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, WriterStamp.class.getName()),
        new StringSerializer(), new StringSerializer());
    producer.initTransactions();
    producer.beginTransaction();
    for (String value : values) {
      producer.send(new ProducerRecord<>(topic, 0, "k", value)).get();
    }
    return producer;
  }

  /** A producer as the dispatcher's settlements have (DispatcherClients.producer). */
  private static KafkaProducer<String, String> dispatcherLike(KafkaBroker kafka) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
        new StringSerializer(), new StringSerializer());
  }

  /**
   * The real cluster, except that the coordinator says {@code state}, done with every partition,
   * of each producer: what the restarted coordinator said in the chaos run of the transaction
   * whose marker it skipped.
   */
  private record CoordinatorSays(TransactionsView real, TransactionState state)
      implements TransactionsView {
    @Override
    public List<OpenTransaction> open(Collection<String> topics) throws Exception {
      return real.open(topics);
    }

    @Override
    public Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) throws Exception {
      Map<Long, CoordinatorView> said = new HashMap<>();
      real.coordinators(producerIds).forEach((id, c) -> said.put(id, new CoordinatorView(id,
          c.producerEpoch(), c.transactionalId(), state, Set.of(), c.startMillis())));
      return said;
    }

    @Override
    public long writeAgain(OpenTransaction transaction, String transactionalId) throws Exception {
      return real.writeAgain(transaction, transactionalId);
    }

    @Override
    public void abort(OpenTransaction transaction) throws Exception {
      real.abort(transaction);
    }
  }

  private static final class Recorded implements HangingTransactionSweeper.Outcomes {
    final List<OpenTransaction> ended = new ArrayList<>();
    final List<Long> writtenAgain = new ArrayList<>();
    final List<HangingTransactionSweeper.Failure> failed = new ArrayList<>();

    @Override
    public void ended(OpenTransaction t, long written) {
      ended.add(t);
      writtenAgain.add(written);
    }

    @Override
    public void held(OpenTransaction t) {
    }

    @Override
    public void failed(HangingTransactionSweeper.Failure kind) {
      failed.add(kind);
    }
  }
}
