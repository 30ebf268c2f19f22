package io.sluice.dispatcher.dispatch;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Outcome;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.topology.delay.DelayLadder;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the record that settles an event (an outcome, a deferral through the ladder, or a dead
 * letter) and reports the event settled only once Kafka has acknowledged that record.
 *
 * <p>That order is the whole of "nothing lost": the ready offset is committed only past settled
 * events, and an event counts as settled only when its next home holds it. A produce that fails
 * is sent again after a second, for as long as this writer is open; if it never succeeds the event
 * stays unsettled, its offset is never committed, and the partition's next owner reads it again.
 */
final class SettlementWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SettlementWriter.class);
  private static final long RESEND_MILLIS = 1000;

  private final Producer<byte[], byte[]> producer;
  private final Topics topics;
  private final DelayLadder ladder;
  private final Clock clock;
  private final Consumer<DispatchEntry> onSettled;
  private final ScheduledExecutorService timer;
  private volatile boolean open = true;

  SettlementWriter(Producer<byte[], byte[]> producer, Topics topics, Clock clock,
      Consumer<DispatchEntry> onSettled, ScheduledExecutorService timer) {
    this.producer = producer;
    this.topics = topics;
    this.ladder = new DelayLadder(topics.ladder());
    this.clock = clock;
    this.onSettled = onSettled;
    this.timer = timer;
  }

  /** The provider took the event: an {@link Outcome} to {@code sluice.outcomes}. */
  void delivered(DispatchEntry e, int status, int attempts) {
    long now = clock.millis();
    Outcome outcome = new Outcome(e.event().id(), e.event().tenant(), e.event().provider(),
        e.tier(), status, attempts, e.firstSeen(), now);
    byte[] value;
    try {
      value = Json.mapper().writeValueAsBytes(outcome);
    } catch (JsonProcessingException ex) {
      throw new UncheckedIOException(ex);
    }
    Headers headers = copy(e.headers());
    HeaderValues.put(headers, HeaderNames.EVENT_ID, e.event().id());
    HeaderValues.put(headers, HeaderNames.ATTEMPT, attempts);
    send(e, new ProducerRecord<>(topics.outcomes(), null, now, e.key(), value, headers));
  }

  /**
   * Back to {@code sluice.ready} through the ladder, not before {@code now + waitMillis}. The
   * event stays paid: the gate charged it once and never sees it again.
   */
  void defer(DispatchEntry e, Reason reason, String detail, long waitMillis, int attempts) {
    long now = clock.millis();
    long notBefore = now + Math.max(0, waitMillis);
    Headers headers = copy(e.headers());
    HeaderValues.put(headers, HeaderNames.NOT_BEFORE, notBefore);
    HeaderValues.put(headers, HeaderNames.RETURN_TO, topics.ready());
    HeaderValues.put(headers, HeaderNames.REASON, reason.code());
    HeaderValues.put(headers, HeaderNames.DETAIL, detail);
    HeaderValues.put(headers, HeaderNames.ATTEMPT, attempts);
    String topic = topics.delay(ladder.stepFor(notBefore - now));
    // Timestamped now: the relay reads the timestamp as the moment the record was placed.
    send(e, new ProducerRecord<>(topic, null, now, e.key(), e.value(), headers));
  }

  /** To {@code sluice.dlq}, with the original key, value and headers plus why. */
  void dead(DispatchEntry e, Reason reason, String detail, int attempts) {
    long now = clock.millis();
    Headers headers = copy(e.headers());
    String id = e.event() == null ? null : e.event().id();
    new DeadLetter(reason.code(), detail, e.source(), id,
        e.firstSeen() == null ? now : e.firstSeen(), attempts).writeTo(headers);
    send(e, new ProducerRecord<>(topics.dlq(), null, now, e.key(), e.value(), headers));
  }

  /** Stops resending; what is not acknowledged by now stays unsettled. */
  void close() {
    open = false;
  }

  private void send(DispatchEntry e, ProducerRecord<byte[], byte[]> record) {
    if (!open) {
      return;
    }
    try {
      producer.send(record, (metadata, error) -> {
        if (error == null) {
          onSettled.accept(e);
        } else {
          resendLater(e, record, error);
        }
      });
    } catch (KafkaException | IllegalStateException error) {
      resendLater(e, record, error);
    }
  }

  private void resendLater(DispatchEntry e, ProducerRecord<byte[], byte[]> record, Exception error) {
    if (!open) {
      return;
    }
    LOG.warn("could not write {} for {} to {} ({}); trying again in {} ms", record.topic(),
        e.source(), record.topic(), error.toString(), RESEND_MILLIS);
    try {
      timer.schedule(() -> send(e, record), RESEND_MILLIS, TimeUnit.MILLISECONDS);
    } catch (RuntimeException rejected) {
      // The timer is shut down: we are closing, and the event stays unsettled.
    }
  }

  private static Headers copy(Headers headers) {
    return new RecordHeaders(headers.toArray());
  }
}
