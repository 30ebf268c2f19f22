package io.sluice.app.dlq;

import io.sluice.config.KafkaConfig;
import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends replayed events to inbound and their ledger records to {@code sluice.replays}, each pair
 * in one Kafka transaction, so a replay that crashes anywhere left, for each dead letter, both or
 * neither: never an event sent and not recorded (sent twice by the next run), never one recorded
 * and not sent (lost).
 *
 * <p>Every run uses the same transactional id, {@code <topicPrefix>dlq-replay}. So
 * {@link #fence()} (Kafka's {@code initTransactions}) ends whatever an earlier run left open: a
 * crashed run's transaction is aborted, and a run still going is fenced, its commit refused. The
 * caller reads the ledger only after fencing; by then no other run can add to it, and what it
 * reads is all that was replayed.
 *
 * <p>A crashed run's open transaction holds inbound's readers (read_committed) back until it is
 * aborted: by the next run's fence, or by the broker after {@link #TRANSACTION_TIMEOUT_MS}. Hence
 * the short timeout, and transactions of at most {@link #PER_TRANSACTION} events.
 */
final class Replayer implements AutoCloseable {
  static final int PER_TRANSACTION = 500;
  static final int TRANSACTION_TIMEOUT_MS = 60_000;
  static final String TRANSACTIONAL_ID = "dlq-replay";

  private final KafkaProducer<byte[], byte[]> producer;
  private final Topics topics;

  Replayer(KafkaConfig kafka, Topics topics) {
    this.topics = topics;
    this.producer = new KafkaProducer<>(kafka.clientProperties(Map.of(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, topics.prefix() + TRANSACTIONAL_ID,
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5,
        // A dead letter's value is at most what its topic takes; inbound took it once.
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Topics.DLQ_MAX_MESSAGE_BYTES,
        ProducerConfig.CLIENT_ID_CONFIG, topics.prefix() + TRANSACTIONAL_ID)),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Ends any earlier run's transaction; call before reading the ledger. */
  void fence() {
    producer.initTransactions();
  }

  /** Sends {@code entries}, committed {@link #PER_TRANSACTION} at a time. */
  void replay(List<DeadLetterEntry> entries, Instant now, String run) {
    replay(entries, List.of(), now, run);
  }

  /**
   * Sends {@code entries}, committed {@link #PER_TRANSACTION} at a time, and records
   * {@code delivered} (dead letters of events {@code sluice.outcomes} shows delivered) in the
   * ledger as settled, without sending them: a later run does not select them again.
   */
  void replay(List<DeadLetterEntry> entries, List<DeadLetterEntry> delivered, Instant now,
      String run) {
    for (int from = 0; from < entries.size(); from += PER_TRANSACTION) {
      begin();
      send(entries.subList(from, Math.min(entries.size(), from + PER_TRANSACTION)), now, run);
      commit();
    }
    for (int from = 0; from < delivered.size(); from += PER_TRANSACTION) {
      begin();
      for (DeadLetterEntry e : delivered.subList(from, Math.min(delivered.size(), from + PER_TRANSACTION))) {
        producer.send(ReplayLedger.delivered(topics.replays(), e, now, run));
      }
      commit();
    }
  }

  /** Sends in the open transaction, without committing (the crash test stops here). */
  void send(List<DeadLetterEntry> entries, Instant now, String run) {
    for (DeadLetterEntry e : entries) {
      producer.send(inbound(topics, e));
      producer.send(ReplayLedger.entry(topics.replays(), e, now, run));
    }
  }

  void begin() {
    producer.beginTransaction();
  }

  void commit() {
    producer.commitTransaction();
  }

  /**
   * The replayed event: the original key and value bytes (so the same id, hence the same
   * {@code Idempotency-Key}), the producer's own headers, none of Sluice's (the gate would strip
   * them anyway: attempts and first-seen start afresh), and the {@link ReplayMark}.
   */
  static ProducerRecord<byte[], byte[]> inbound(Topics topics, DeadLetterEntry e) {
    Headers headers = e.producerHeaders();
    headers.add(ReplayMark.HEADER, e.at().getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(topics.inbound(), null, null, e.key(), e.value(), headers);
  }

  @Override
  public void close() {
    producer.close();
  }
}
