package io.sluice.app.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.schemas.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What {@code dlq replay} has sent: the compacted topic {@code sluice.replays}, one record per
 * dead letter replayed, keyed by the dead letter's coordinates ({@code sluice.dlq-0@42}), its value
 * a small JSON note ({@code eventId}, {@code replayedAt}, {@code run}).
 *
 * <p>A ledger record is written in the same Kafka transaction as the replayed event
 * ({@link Replayer}), and read with {@code read_committed}: a replay that crashed before its
 * commit left neither, one that committed left both. A tombstone (null value) for a key forgets
 * that replay, for an operator who means to send a dead letter once more.
 */
final class ReplayLedger {
  private ReplayLedger() {}

  /** The coordinates of every dead letter replayed, as committed. */
  static Set<String> read(KafkaConsumer<byte[], byte[]> c, String topic, Duration timeout) {
    Set<String> replayed = new HashSet<>();
    BoundedScan.Result r = BoundedScan.read(c, topic, Optional.empty(), timeout, rec -> {
      if (rec.key() != null) {
        String at = new String(rec.key(), StandardCharsets.UTF_8);
        if (rec.value() == null) {
          replayed.remove(at);
        } else {
          replayed.add(at);
        }
      }
      return true;
    });
    if (r.timedOut()) {
      // Sending without the whole ledger could send a dead letter twice: nothing is sent.
      throw new IllegalStateException("could not read the replay ledger " + topic + " to its end "
          + "within " + timeout.toSeconds() + " s; nothing was replayed");
    }
    return replayed;
  }

  /** The ledger record of one replayed dead letter. */
  static ProducerRecord<byte[], byte[]> entry(String topic, DeadLetterEntry e, Instant now,
      String run) {
    Map<String, Object> note = new LinkedHashMap<>();
    note.put("eventId", e.eventId());
    note.put("replayedAt", now.toEpochMilli());
    note.put("run", run);
    try {
      return new ProducerRecord<>(topic, e.at().getBytes(StandardCharsets.UTF_8),
          Json.mapper().writeValueAsBytes(note));
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }
}
