package io.sluice.dispatcher.app.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RealServers;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sweeper's view of a real broker: it sees a transaction held open, leaves a live one alone
 * however long it has been open (its coordinator still owes the partition a marker), and an abort
 * it writes moves the partition's last stable offset to the end. (A hanging transaction itself
 * takes a broker fault to make; the failed chaos run's broker data had one, and the sweeper
 * aborted it: see HangingTransactionSweeperTest for the decision.)
 */
@ExtendWith(RealServers.class)
class AdminTransactionsViewIT {
  private static final String LIVE = "hanging-it.live";
  private static final String ABORTED = "hanging-it.aborted";

  @BeforeAll
  static void topics(KafkaBroker kafka) {
    kafka.createTopics(Map.of(LIVE, 1, ABORTED, 1));
  }

  @Test
  void leavesALiveTransactionAloneHoweverLongItIsOpen(KafkaBroker kafka) throws Exception {
    TopicPartition partition = new TopicPartition(LIVE, 0);
    try (AdminTransactionsView view = new AdminTransactionsView(kafka.admin());
        KafkaProducer<String, String> producer = holdingOpen(kafka, LIVE)) {
      List<OpenTransaction> aborted = new ArrayList<>();
      HangingTransactionSweeper sweeper = new HangingTransactionSweeper(view, List.of(LIVE),
          Duration.ZERO, Clock.systemUTC(), id -> true, aborted::add);

      List<OpenTransaction> open = view.open(List.of(LIVE));
      assertEquals(1, open.size(), () -> "open: " + open);
      assertEquals(partition, open.get(0).partition());
      assertTrue(view.coordinators(Set.of(open.get(0).producerId()))
          .get(open.get(0).producerId()).owesMarkerTo(partition));
      assertEquals(List.of(), sweeper.sweep());
      assertEquals(List.of(), sweeper.sweep(), "open past the patience, and still live");

      producer.commitTransaction();
      assertEquals(List.of(), aborted);
      // The commit returns once the coordinator prepared it; its marker follows.
      Await.until("the commit marker reaches the partition", Duration.ofSeconds(30),
          () -> openOn(view, LIVE).isEmpty());
    }
  }

  @Test
  void anAbortItWritesMovesTheLastStableOffsetToTheEnd(KafkaBroker kafka) throws Exception {
    TopicPartition partition = new TopicPartition(ABORTED, 0);
    try (Admin admin = kafka.admin();
        KafkaProducer<String, String> producer = holdingOpen(kafka, ABORTED)) {
      AdminTransactionsView view = new AdminTransactionsView(admin);
      OpenTransaction open = view.open(List.of(ABORTED)).get(0);
      assertTrue(stable(admin, partition) <= open.startOffset(), "held back before the abort");

      view.abort(open);

      assertEquals(List.of(), view.open(List.of(ABORTED)));
      long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).all().get()
          .get(partition).offset();
      assertEquals(end, stable(admin, partition));
    }
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

  /** A producer with a transaction open on {@code topic}'s partition 0 (timeout 60 s). */
  private static KafkaProducer<String, String> holdingOpen(KafkaBroker kafka, String topic)
      throws Exception {
    KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-producer",
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000),
        new StringSerializer(), new StringSerializer());
    producer.initTransactions();
    producer.beginTransaction();
    producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get();
    return producer;
  }
}
