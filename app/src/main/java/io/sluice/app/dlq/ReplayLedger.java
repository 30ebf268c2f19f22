package io.sluice.app.dlq;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import io.sluice.schemas.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What {@code dlq replay} has sent: the compacted topic {@code sluice.replays}, one record per
 * dead letter replayed, keyed by the dead letter's coordinates ({@code sluice.dlq-0@42}), its value
 * a small JSON note ({@code eventId}, {@code replayOf}: the death it answered, see
 * {@link ReplayedEvents}; {@code replayedAt}, {@code run}; {@code settled: "delivered"} for a dead
 * letter not sent because its event has an outcome). Compacted and never deleted by time
 * ({@code Topics.REPLAY_LEDGER_RETENTION_MS}): a dead letter kept longer than its ledger record
 * would be replayed a second time.
 *
 * <p>A ledger record is written in the same Kafka transaction as the replayed event
 * ({@link Replayer}), and read with {@code read_committed}: a replay that crashed before its
 * commit left neither, one that committed left both. A tombstone (null value) for a key forgets
 * that replay, for an operator who means to send a dead letter once more.
 */
final class ReplayLedger {
  private ReplayLedger() {}

  /** Every dead letter replayed (or settled), and the death each answered, as committed. */
  static ReplayedEvents read(KafkaConsumer<byte[], byte[]> c, String topic, Duration timeout) {
    ReplayedEvents replayed = ReplayedEvents.none();
    BoundedScan.Result r = BoundedScan.read(c, topic, Optional.empty(), timeout, rec -> {
      if (rec.key() != null) {
        String at = new String(rec.key(), StandardCharsets.UTF_8);
        if (rec.value() == null) {
          replayed.forgotten(at);
        } else {
          replayed.replayed(at, death(rec.value()));
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

  /**
   * The death a ledger note names; null when it names no event (an unreadable note, or a dead
   * letter whose event id was unknown): then only its position counts.
   */
  static ReplayedEvents.Death death(byte[] note) {
    try {
      JsonNode n = Json.mapper().readTree(note);
      JsonNode id = n == null ? null : n.get("eventId");
      if (id == null || !id.isTextual()) {
        return null;
      }
      JsonNode of = n.get("replayOf");
      return new ReplayedEvents.Death(id.asText(), of != null && of.isTextual() ? of.asText() : null);
    } catch (IOException | RuntimeException unreadable) {
      return null;
    }
  }

  /** The ledger record of one replayed dead letter. */
  static ProducerRecord<byte[], byte[]> entry(String topic, DeadLetterEntry e, Instant now,
      String run) {
    return entry(topic, e, now, run, null);
  }

  /** The ledger record of one dead letter settled without a replay: its event was delivered. */
  static ProducerRecord<byte[], byte[]> delivered(String topic, DeadLetterEntry e, Instant now,
      String run) {
    return entry(topic, e, now, run, "delivered");
  }

  private static ProducerRecord<byte[], byte[]> entry(String topic, DeadLetterEntry e,
      Instant now, String run, String settled) {
    Map<String, Object> note = new LinkedHashMap<>();
    note.put("eventId", e.eventId());
    if (e.replayOf() != null) {
      note.put("replayOf", e.replayOf());
    }
    note.put("replayedAt", now.toEpochMilli());
    note.put("run", run);
    if (settled != null) {
      note.put("settled", settled);
    }
    try {
      return new ProducerRecord<>(topic, e.at().getBytes(StandardCharsets.UTF_8),
          Json.mapper().writeValueAsBytes(note));
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }
}
