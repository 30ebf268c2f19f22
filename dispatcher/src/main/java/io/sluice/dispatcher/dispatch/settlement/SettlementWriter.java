package io.sluice.dispatcher.dispatch.settlement;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.EventLog;
import io.sluice.schemas.event.Outcome;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.SendFailure;
import io.sluice.schemas.topic.Topics;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
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
 * is sent again for as long as this writer is open; if it never succeeds the event stays
 * unsettled, its offset is never committed, and the partition's next owner reads it again.
 *
 * <p>Sending again after a timeout can write a settlement twice: the broker may have written the
 * first, its acknowledgement lost (Kafka's idempotence covers the producer's own retries of a
 * batch, not a record sent anew). Every copy names the record it settles ({@link
 * HeaderNames#SETTLES}), and the dispatcher reading a retry back drops the second copy, so it is
 * not called twice ({@code SettlementAfterTimeoutIT}).
 *
 * <h2>Failures that sending again cannot cure</h2>
 * A retriable failure ({@link SendFailure}) is sent again after a second. A permanent one (not
 * authorised, invalid topic, a fatal producer error) would fail every second for ever while the
 * partition's commit stays stuck behind it, so:
 * <ul>
 *   <li>a dead letter too large for {@code sluice.dlq} is sent again without its value: key,
 *       headers, reason and a detail naming where the original is ({@code topic-partition@offset},
 *       kept for the topic's retention) still reach the DLQ, and the event is settled;</li>
 *   <li>anything else, or a dead letter still refused without its value, makes {@link #problem()}
 *       name it (the dispatcher role reports unhealthy), is logged once per topic and error, and
 *       is sent again with a backoff doubling to a minute, in case an operator fixes the cause
 *       (an ACL, a topic's {@code max.message.bytes}); when it gets through the problem clears.</li>
 * </ul>
 *
 * <h2>Never on the caller's thread</h2>
 * {@code KafkaProducer.send} blocks its caller while it lacks a topic's metadata (up to
 * {@code max.block.ms}, a minute) or buffer space: with the broker away, the threads that handle
 * providers' answers (the common pool's two workers) waited inside it, every later answer queued
 * behind them unjudged, and a SIGKILL lost them all, to be called again by the next owner (issue
 * 39's chaos runs; {@code docs/decisions/2026-11-29-duplicates-after-sigkills.md}). So each
 * settlement is handed to the {@code sender} (the dispatcher's own thread, in order) and the
 * caller goes on at once: its answer is judged and its delivery goes to the delivered log whatever
 * Kafka does. What was handed and not yet acknowledged is counted, with the oldest's age
 * ({@link #stall}): past {@link WriteStall}'s bound the dispatcher stops calling.
 */
public final class SettlementWriter {
  private static final Logger LOG = LoggerFactory.getLogger(SettlementWriter.class);
  private static final long MAX_RESEND_MILLIS = 60_000;

  private final Producer<byte[], byte[]> producer;
  private final Topics topics;
  private final DelayLadder ladder;
  private final Clock clock;
  private final Consumer<DispatchEntry> onSettled;
  private final Consumer<DispatchEntry> onDropped;
  private final ScheduledExecutorService timer;
  private final long resendMillis;
  /** Whether the entry's partition is still read by the assignment that read it. */
  private final Predicate<DispatchEntry> owned;
  /** Settlements refused permanently and not yet written, by source: what makes us unhealthy. */
  private final Map<String, String> stuck = new ConcurrentHashMap<>();
  /** "topic: error class" already logged, so a stuck topic is logged once, not per event. */
  private final Set<String> logged = ConcurrentHashMap.newKeySet();
  private volatile boolean open = true;
  /** Hands each settlement to the producer, off the caller's thread (see the class). */
  private final Executor sender;
  private final LongSupplier nanoTime;
  /** Settlements handed and not yet acknowledged (nor given up): number, and when each was handed. */
  private final ConcurrentSkipListMap<Long, Long> unacknowledged = new ConcurrentSkipListMap<>();
  private final AtomicInteger unacknowledgedCount = new AtomicInteger();
  private final AtomicLong handed = new AtomicLong();

  public SettlementWriter(Producer<byte[], byte[]> producer, Topics topics, Clock clock,
      Consumer<DispatchEntry> onSettled, ScheduledExecutorService timer) {
    this(producer, topics, clock, onSettled, e -> { }, timer, 1000, e -> true);
  }

  /** As below, sending on the caller's thread, on the machine's monotonic clock (tests). */
  public SettlementWriter(Producer<byte[], byte[]> producer, Topics topics, Clock clock,
      Consumer<DispatchEntry> onSettled, Consumer<DispatchEntry> onDropped,
      ScheduledExecutorService timer, long resendMillis, Predicate<DispatchEntry> owned) {
    this(producer, topics, clock, onSettled, onDropped, timer, resendMillis, owned, Runnable::run,
        System::nanoTime);
  }

  /**
   * @param onSettled    told of each entry whose settlement Kafka acknowledged
   * @param onDropped    told of each entry whose settlement is given up because its partition
   *                     moved: never settled here, but no longer held either (what the caller
   *                     counted for it, its bytes, must be let go)
   * @param resendMillis wait before a failed produce is sent again (doubling when permanent)
   * @param owned        false once the entry's partition was revoked or lost: a failed produce is
   *                     then not sent again. The partition's new owner reads the record again and
   *                     settles it itself; a resend landing too would settle it twice (a deferral
   *                     written twice brings the event back twice, and it is called twice).
   * @param sender       runs every {@code producer.send}, in the order handed: one thread of its
   *                     own, so that no caller waits for Kafka
   * @param nanoTime     the monotonic clock the settlements' ages are counted on
   */
  public SettlementWriter(Producer<byte[], byte[]> producer, Topics topics, Clock clock,
      Consumer<DispatchEntry> onSettled, Consumer<DispatchEntry> onDropped,
      ScheduledExecutorService timer, long resendMillis, Predicate<DispatchEntry> owned,
      Executor sender, LongSupplier nanoTime) {
    this.sender = sender;
    this.nanoTime = nanoTime;
    this.onDropped = onDropped;
    this.resendMillis = resendMillis;
    this.owned = owned;
    this.producer = producer;
    this.topics = topics;
    this.ladder = new DelayLadder(topics.ladder());
    this.clock = clock;
    this.onSettled = onSettled;
    this.timer = timer;
  }

  /** The provider took the event: an {@link Outcome} to {@code sluice.outcomes}. */
  public void delivered(DispatchEntry e, int status, int attempts) {
    delivered(e, status, attempts, null, Map.of(), null);
  }

  /**
   * The provider took the event, answering as said: an {@link Outcome} with the call's latency
   * (null if unknown) and what the provider's {@code capture:} kept.
   */
  public void delivered(DispatchEntry e, int status, int attempts, Long latencyMs,
      Map<String, String> captured, String body) {
    long now = clock.millis();
    Outcome outcome = new Outcome(e.event().id(), e.event().tenant(), e.event().provider(),
        e.tier(), status, attempts, e.firstSeen(), now, latencyMs,
        captured.isEmpty() ? null : captured, body);
    byte[] value;
    try {
      value = Json.mapper().writeValueAsBytes(outcome);
    } catch (JsonProcessingException ex) {
      throw new UncheckedIOException(ex);
    }
    Headers headers = copy(e.headers());
    HeaderValues.put(headers, HeaderNames.EVENT_ID, e.event().id());
    HeaderValues.put(headers, HeaderNames.ATTEMPT, attempts);
    EventLog.delivered(e.event().tenant(), e.event().provider(), e.event().id(), status, attempts);
    send(e, new ProducerRecord<>(topics.outcomes(), null, now, e.key(), value, headers));
  }

  /**
   * Back to {@code sluice.ready} through the ladder, not before {@code now + waitMillis}. The
   * event stays paid: the gate charged it once and never sees it again.
   */
  public void defer(DispatchEntry e, Reason reason, String detail, long waitMillis, int attempts) {
    defer(e, reason, detail, waitMillis, attempts, null);
  }

  /** As {@link #defer(DispatchEntry, Reason, String, long, int)}, the provider having refused
   *  the call with {@code status} (null: no answer). */
  public void defer(DispatchEntry e, Reason reason, String detail, long waitMillis, int attempts,
      Integer status) {
    EventLog.retried(tenant(e), provider(e), eventId(e), reason, status, waitMillis, attempts);
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
  public void dead(DispatchEntry e, Reason reason, String detail, int attempts) {
    dead(e, reason, detail, attempts, null);
  }

  /** As {@link #dead(DispatchEntry, Reason, String, int)}, the provider having refused the call
   *  with {@code status} (null: no answer). */
  public void dead(DispatchEntry e, Reason reason, String detail, int attempts, Integer status) {
    long now = clock.millis();
    Headers headers = copy(e.headers());
    String id = eventId(e);
    EventLog.deadLettered("dispatcher", tenant(e), provider(e), id, reason, status, attempts);
    new DeadLetter(reason.code(), detail, e.source(), id,
        e.firstSeen() == null ? now : e.firstSeen(), attempts).writeTo(headers);
    send(e, new ProducerRecord<>(topics.dlq(), null, now, e.key(), e.value(), headers));
  }

  /** Stops resending; what is not acknowledged by now stays unsettled. */
  public void close() {
    open = false;
  }

  /**
   * Waits, at most {@code millis}, until every settlement handed so far is with the producer, then
   * flushes the producer (a hand-over, a clean shutdown).
   */
  public void flush(long millis) {
    try {
      CompletableFuture.runAsync(() -> { }, sender).get(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return; // the sender is stuck on the broker, or gone: nothing more to flush
    }
    producer.flush();
  }

  /** Settlements handed to this writer and not yet acknowledged by Kafka (nor given up). */
  public int unacknowledged() {
    return unacknowledgedCount.get();
  }

  /**
   * Why new calls must wait now ({@link WriteStall}: settlements going unacknowledged), or empty.
   */
  public Optional<String> stall() {
    var oldest = unacknowledged.firstEntry();
    int count = unacknowledgedCount.get();
    return oldest == null ? Optional.empty()
        : WriteStall.why(nanoTime.getAsLong(), oldest.getValue(), count);
  }

  /** The settlement numbered {@code id} needs counting no more: acknowledged, or given up. */
  private void done(long id) {
    if (unacknowledged.remove(id) != null) {
      unacknowledgedCount.decrementAndGet();
    }
  }

  /**
   * Empty while every settlement can be written (or is failing in a way that may pass); else a
   * sentence naming a settlement Kafka refuses permanently and why.
   */
  public Optional<String> problem() {
    return stuck.values().stream().findFirst()
        .map(p -> stuck.size() == 1 ? p : p + " (and " + (stuck.size() - 1) + " more)");
  }

  /**
   * Sends a settlement of {@code e}, named by the record it settles ({@link HeaderNames#SETTLES}):
   * every copy of it carries the same name, the ones sent again below after a produce that timed
   * out (which the broker may have written) and the ones a partition's next owner writes for the
   * same record. A reader drops the copies after the first (see RecordIntake).
   */
  private void send(DispatchEntry e, ProducerRecord<byte[], byte[]> record) {
    HeaderValues.put(record.headers(), HeaderNames.SETTLES, e.source());
    long id = handed.incrementAndGet();
    unacknowledged.put(id, nanoTime.getAsLong());
    unacknowledgedCount.incrementAndGet();
    send(e, record, 0, id);
  }

  /**
   * Hands {@code record} to the sender.
   *
   * @param failures permanent failures of this settlement so far (sets the backoff)
   * @param id       the settlement's number among those handed ({@link #unacknowledged})
   */
  private void send(DispatchEntry e, ProducerRecord<byte[], byte[]> record, int failures,
      long id) {
    if (!open) {
      return;
    }
    try {
      sender.execute(() -> sendNow(e, record, failures, id));
    } catch (RejectedExecutionException closing) {
      // The dispatcher stops: what is not written stays unsettled, read again by the next owner.
    }
  }

  /** On the sender: may block while the producer waits for metadata or buffer space. */
  private void sendNow(DispatchEntry e, ProducerRecord<byte[], byte[]> record, int failures,
      long id) {
    if (!open) {
      return;
    }
    try {
      producer.send(record, (metadata, error) -> {
        if (error == null) {
          done(id);
          if (failures > 0 && stuck.remove(e.source()) != null) {
            LOG.warn("{} for {} written at last", record.topic(), e.source());
          }
          onSettled.accept(e);
        } else {
          failed(e, record, error, failures, id);
        }
      });
    } catch (KafkaException | IllegalStateException error) {
      failed(e, record, error, failures, id);
    }
  }

  private void failed(DispatchEntry e, ProducerRecord<byte[], byte[]> record, Exception error,
      int failures, long id) {
    if (!open) {
      return;
    }
    SendFailure kind = SendFailure.of(error);
    if (kind == SendFailure.RETRIABLE) {
      LOG.warn("could not write {} for {} ({}); trying again in {} ms", record.topic(),
          e.source(), error.toString(), resendMillis);
      resendAfter(e, record, resendMillis, failures, id);
      return;
    }
    if (kind == SendFailure.TOO_LARGE && record.topic().equals(topics.dlq())
        && record.value() != null) {
      send(e, withoutValue(e, record, error), failures, id);
      return;
    }
    String why = "cannot write " + record.topic() + " for " + e.source() + ": " + error;
    stuck.put(e.source(), why);
    // Refused for good: reported as a problem, and not counted as waiting for the broker (it
    // would stop every provider's calls for one topic's ACL, WriteStall).
    done(id);
    if (logged.add(record.topic() + ": " + error.getClass().getName())) {
      LOG.error("dispatcher: {}. Kafka refuses it permanently; the partition's commit stays "
          + "behind this event and /health reports the dispatcher unhealthy until it is written "
          + "(sent again with a backoff up to {} s; further events failing the same way are not "
          + "logged)", why, MAX_RESEND_MILLIS / 1000);
    }
    long wait = Math.min(MAX_RESEND_MILLIS, resendMillis << Math.min(16, failures));
    resendAfter(e, record, wait, failures + 1, id);
  }

  /**
   * The dead letter without its value: too large for the DLQ, it would be refused for ever. The
   * detail says so and where the original is; the event is settled once this is written.
   */
  private static ProducerRecord<byte[], byte[]> withoutValue(DispatchEntry e,
      ProducerRecord<byte[], byte[]> record, Exception error) {
    Headers headers = copy(record.headers());
    String detail = HeaderValues.last(headers, HeaderNames.DETAIL).orElse("");
    HeaderValues.put(headers, HeaderNames.DETAIL, detail + " [value of "
        + record.value().length + " bytes left out, too large for " + record.topic() + " ("
        + error.getMessage() + "); the original is at " + e.source() + "]");
    return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(),
        record.key(), null, headers);
  }

  private void resendAfter(DispatchEntry e, ProducerRecord<byte[], byte[]> record, long millis,
      int failures, long id) {
    try {
      timer.schedule(() -> {
        if (owned.test(e)) {
          send(e, record, failures, id);
          return;
        }
        done(id);
        if (stuck.remove(e.source()) != null) {
          LOG.warn("{} for {} no longer written by this instance: its partition moved", record.topic(),
              e.source());
        }
        onDropped.accept(e);
      }, millis, TimeUnit.MILLISECONDS);
    } catch (RuntimeException rejected) {
      // The timer is shut down: we are closing, and the event stays unsettled.
    }
  }

  /** The event's tenant: its own field, or the record key when the value did not parse. */
  private static String tenant(DispatchEntry e) {
    if (e.event() != null) {
      return e.event().tenant();
    }
    return e.key() == null ? null : new String(e.key(), StandardCharsets.UTF_8);
  }

  private static String provider(DispatchEntry e) {
    return e.event() == null ? null : e.event().provider();
  }

  private static String eventId(DispatchEntry e) {
    return e.event() == null ? null : e.event().id();
  }

  private static Headers copy(Headers headers) {
    return new RecordHeaders(headers.toArray());
  }
}
