package io.sluice.relay;

import io.sluice.relay.HeldRecords.Waiting;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.ReadyTopic;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.offsets.Overflow;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import io.sluice.schemas.trace.StageSpan;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.trace.TraceHeaders;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.SendFailure;
import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting room: reads each delay partition ahead, holds its records in memory, and returns
 * each to the topic named in its {@code sluice-return-to} header when it falls due, whatever the
 * records before it in the partition are doing.
 *
 * <p>No thread sleeps per record and nothing busy-polls: {@code poll} waits (still heartbeating) at
 * most until the earliest record held falls due, and returns sooner when records arrive. Records
 * leave a step topic at {@code min(notBefore, placed + step)} (see {@link DelayLadder}); a record
 * whose not-before is still ahead then hops to a smaller step.
 *
 * <h2>Out of order, bounded</h2>
 * A partition's records are released in the order they fall due, not in offset order: a record
 * never waits behind an earlier one that is due later (in the smallest step, records of all
 * waits below it mix). The relay holds at most {@link #READ_AHEAD} records of a partition; at that
 * many it pauses the partition, and resumes it when half have gone. What has gone is recorded in
 * the commit by a {@link OffsetLedger}: the committed offset is the lowest record not released,
 * and its metadata lists the offsets above it already released, so a relay that takes the partition
 * over skips them.
 *
 * <p>Never early: a record goes to its return topic only when the relay's clock has reached its
 * not-before. Not-befores are stamped on Redis's clock, so {@link RelayService} gives the relay a
 * lower bound of Redis's clock ({@link io.sluice.redis.RedisTimeClock}), not the host's.
 * The clock is the only source of time here (tests drive a fake one). Until Redis's clock has
 * been sampled once (a relay started while Redis is down) the clock is the host's: no record is
 * released until then ({@code mayRelease}), so "never early" has no start-up exception.
 *
 * <h2>Exactly once to read_committed readers</h2>
 * Each round (the records due after one poll) is one Kafka transaction: the records it relays and
 * each partition's commit (offset and ledger metadata) are committed together
 * ({@code sendOffsetsToTransaction} with the consumer's group metadata, so a relay that lost its
 * partitions in a rebalance cannot commit for them). A SIGKILL between the produces and the commit
 * leaves an open transaction that the coordinator aborts (after {@code transaction.timeout.ms}):
 * its records are never seen by the dispatcher, the gate or the next relay, which all read
 * committed, and the next owner, reading from the last commit, relays them once. A produce that
 * fails aborts the whole round; its records stay held and are sent again. Nothing is recorded as
 * released unless every produce of its round was acknowledged, because nothing is committed at all
 * unless they were.
 *
 * <h2>A record Kafka will never take</h2>
 * A produce refused for a reason of the record's own ({@link SendFailure#isTheRecords}: too large,
 * a topic that may not be written) would abort its round for ever. The relay remembers it, and on
 * sending it again dead-letters it with that reason instead; a dead letter too large for the DLQ
 * goes without its value. Any other failure (a timeout, a leader moving, the broker away) is tried
 * again after {@link #RETRY_MILLIS}.
 */
public final class Relay implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
  /**
   * The runs of released offsets a commit lists at most: in {@link SettledOffsetsCodec.Format#RUNS_V1}
   * a run costs at most 28 characters, so 100 fit 4096 bytes. A release that would list one more
   * waits until the records before it have gone (late, never twice).
   */
  static final int MAX_RUNS = 100;
  static final Overflow LEDGER_OVERFLOW = Overflow.refuseBeyond(MAX_RUNS);
  /** The relay's commit metadata format, the one it has always written (see SettledOffsetsCodec). */
  static final SettledOffsetsCodec.Format METADATA_FORMAT = SettledOffsetsCodec.Format.RUNS_V1;
  private static final long MAX_POLL_MILLIS = 500;
  /** How long a poll waits while Redis's clock was never sampled (the sampler retries meanwhile). */
  static final long UNSAMPLED_POLL_MILLIS = 100;
  /** How long a partition waits after a failed round before the relay sends from it again. */
  static final long RETRY_MILLIS = 1000;
  /** Records of one partition held at most; the partition is paused at this many. */
  static final int READ_AHEAD = 1000;
  /** Times a commit or an abort that timed out is tried again before the relay gives up. */
  private static final int END_ATTEMPTS = 3;
  /** How long the relay waits for a partition's commit when it gets the partition. */
  private static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(5);
  /**
   * How long a later look-up of commits not read yet may hold the loop. The consumer keeps the
   * request it sent and picks it up at the next call, so a short wait loses no answer.
   */
  static final Duration RETRY_LOOKUP_TIMEOUT = Duration.ofMillis(100);
  /** The wait before the first retry of a failed look-up; it doubles on each failure. */
  static final long FIRST_LOOKUP_RETRY_MILLIS = 250;
  /** The longest wait between retries of a failed look-up. */
  static final long MAX_LOOKUP_RETRY_MILLIS = 5000;

  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> producer;
  private final Topics topics;
  private final DelayLadder ladder;
  private final Set<String> returnTopics;
  private final Clock clock;
  private final BooleanSupplier mayRelease;
  private final RelayListener listener;
  /** Each record's time in the ladder, a span of its trace; {@link StageTracer#OFF} for none. */
  private final StageTracer tracer;
  /** The partitions this relay owns and knows the commit of, and the records they hold. */
  private final HeldRecords held;
  /** Partitions owned whose commit could not be read yet: paused, nothing of them is relayed. */
  private final Set<TopicPartition> unknown = new HashSet<>();
  /**
   * When the commits of {@link #unknown} are looked up again, and the wait after that one if it
   * fails: a commit that stays unreadable costs the other partitions' rounds at most
   * {@link #RETRY_LOOKUP_TIMEOUT} every {@link #MAX_LOOKUP_RETRY_MILLIS}, not a look-up per round.
   */
  private long lookUpAt = Long.MIN_VALUE;
  private long lookUpRetryMillis = FIRST_LOOKUP_RETRY_MILLIS;
  /** The open transaction's produces, one per record relayed. */
  private final List<Sent> inFlight = new ArrayList<>();
  /** Records Kafka refused for a reason of their own, dead-lettered when sent again. */
  private final Map<Source, Refusal> refused = new HashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private boolean inTransaction;

  /**
   * @param producer a transactional producer ({@code transactional.id} set), not yet initialised:
   *                 the relay's thread initialises it
   * @param clock    the only time the relay reads: when a record is due, how long poll may wait
   */
  public Relay(
      Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer, Topics topics,
      Clock clock, RelayListener listener) {
    this(consumer, producer, topics, clock, () -> true, listener);
  }

  /**
   * @param mayRelease whether {@code clock} may judge a not-before yet: false until Redis's clock
   *                   was sampled once ({@link io.sluice.redis.RedisTimeClock#onRedisTime}). Until
   *                   then the clock is the host's, good for the relay's own timers (polls,
   *                   retries, look-ups) but not for a not-before stamped on Redis's clock: a host
   *                   ahead of Redis would release early. So nothing is released, a dead letter
   *                   included, until it turns true.
   */
  public Relay(
      Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer, Topics topics,
      Clock clock, BooleanSupplier mayRelease, RelayListener listener) {
    this(consumer, producer, topics, clock, mayRelease, listener, StageTracer.OFF);
  }

  /** @param tracer each release and hop a span in the record's trace ({@code traceparent}) */
  public Relay(
      Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer, Topics topics,
      Clock clock, BooleanSupplier mayRelease, RelayListener listener, StageTracer tracer) {
    this.tracer = tracer;
    this.mayRelease = mayRelease;
    this.consumer = consumer;
    this.producer = producer;
    this.topics = topics;
    this.ladder = new DelayLadder(topics.ladder());
    this.returnTopics = returnTopics(topics);
    Map<String, Duration> stepOfTopic = new HashMap<>();
    for (Duration step : topics.ladder()) {
      stepOfTopic.put(topics.delay(step), step);
    }
    this.held = new HeldRecords(ladder, stepOfTopic, returnTopics, READ_AHEAD);
    this.clock = clock;
    this.listener = listener;
  }

  @Override
  public void run() {
    try {
      initTransactions();
      consumer.subscribe(topics.delays(), new Rebalance());
      while (running.get()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(pollTimeout()));
        if (!unknown.isEmpty() && clock.millis() >= lookUpAt) {
          lookUp(Set.copyOf(unknown), RETRY_LOOKUP_TIMEOUT);
        }
        for (TopicPartition tp : records.partitions()) {
          hold(tp, records.records(tp));
        }
        long now = clock.millis();
        held.endHolds(now);
        if (mayRelease.getAsBoolean()) {
          releaseDue(now);
        }
        settle();
        pauseOrResume();
      }
    } catch (WakeupException e) {
      if (running.get()) {
        LOG.error("relay: woken up while running; the relay stops", e);
        throw e;
      }
    } catch (RuntimeException e) {
      LOG.error("relay: stopped by an unexpected error (its supervisor starts it again)", e);
      throw e;
    } finally {
      settleQuietly();
      consumer.close();
      producer.close();
    }
  }

  /** Stops the loop from any thread; the loop settles what it has sent, commits and closes. */
  @Override
  public void close() {
    running.set(false);
    consumer.wakeup();
  }

  /**
   * Registers the transactional id with its coordinator (which aborts a transaction a previous
   * producer of that id left open). A broker still starting answers late: tried until it does,
   * or the relay is closed.
   */
  private void initTransactions() {
    while (true) {
      try {
        producer.initTransactions();
        return;
      } catch (TimeoutException e) {
        if (!running.get()) {
          throw e;
        }
        LOG.warn("relay: the transaction coordinator did not answer ({}); trying again", e.toString());
      }
    }
  }

  /**
   * Reads the commits of partitions just got, so that what an earlier owner released is skipped.
   * A partition whose commit cannot be read stays paused, and is looked up again (waiting at most
   * {@link #RETRY_LOOKUP_TIMEOUT}) after a wait doubling from {@link #FIRST_LOOKUP_RETRY_MILLIS}
   * to {@link #MAX_LOOKUP_RETRY_MILLIS}, so the partitions already held keep their pace.
   */
  private void lookUp(Set<TopicPartition> partitions, Duration timeout) {
    if (partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> commits;
    try {
      commits = consumer.committed(partitions, timeout);
    } catch (WakeupException | InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      unknown.addAll(partitions);
      consumer.pause(partitions);
      lookUpAt = clock.millis() + lookUpRetryMillis;
      LOG.warn("relay: could not read the commits of {} ({}); they wait, looked up again in {} ms",
          partitions, e.toString(), lookUpRetryMillis);
      lookUpRetryMillis = Math.min(MAX_LOOKUP_RETRY_MILLIS, 2 * lookUpRetryMillis);
      return;
    }
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata commit = commits.get(tp);
      OffsetLedger ledger;
      try {
        ledger = commit == null ? new OffsetLedger(-1, SettledOffsets.NONE, LEDGER_OVERFLOW)
            : new OffsetLedger(commit.offset(), SettledOffsetsCodec.decode(commit.offset(), commit.metadata()),
                LEDGER_OVERFLOW);
      } catch (IllegalArgumentException e) {
        // Not written by a relay of this version: every record from the commit on is relayed
        // (at least once), none is lost.
        LOG.error("relay: {}: {}; relaying from offset {}", tp, e.getMessage(), commit.offset());
        ledger = new OffsetLedger(commit.offset(), SettledOffsets.NONE, LEDGER_OVERFLOW);
      }
      held.own(tp, ledger);
      unknown.remove(tp);
    }
    if (unknown.isEmpty()) {
      lookUpRetryMillis = FIRST_LOOKUP_RETRY_MILLIS;
    }
    consumer.resume(partitions);
  }

  /** Takes a partition's records into memory, once its commit is known. */
  private void hold(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch) {
    if (!held.owns(tp)) {
      // Its commit is not known yet: read these again once it is.
      consumer.seek(tp, batch.get(0).offset());
      consumer.pause(Set.of(tp));
      return;
    }
    held.hold(tp, batch);
  }

  /** Sends every record due, earliest first, in the open transaction ({@link HeldRecords#nextDue}). */
  private void releaseDue(long now) {
    for (Waiting w = held.nextDue(now); w != null; w = held.nextDue(now)) {
      relay(w, now);
    }
  }

  /** Sends exactly one record for {@code w}: home, a step down, or to the DLQ. */
  private void relay(Waiting w, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    Refusal refusal = refused.remove(new Source(w.partition(), record.offset()));
    if (refusal != null) {
      unsendable(w, refusal, now);
    } else if (!w.what().valid()) {
      deadLetter(w, w.what().problem(), record.value(), now);
    } else if (now >= w.what().notBefore()) {
      returnHome(w, now);
    } else {
      hop(w, now);
    }
  }

  /** Pauses the partitions holding too many records, resumes those that hold few again. */
  private void pauseOrResume() {
    List<TopicPartition> pause = new ArrayList<>();
    List<TopicPartition> resume = new ArrayList<>();
    held.pauseOrResume(pause, resume);
    if (!pause.isEmpty()) {
      consumer.pause(pause);
    }
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
  }

  /**
   * The topics the relay may send a record back to. A {@code sluice-return-to} naming any other
   * (a delay topic, the DLQ, outcomes, a topic outside Sluice) is forged or replayed: it is
   * dead-lettered, never produced to.
   *
   * <p>Inbound stays allowed for records queued before {@code <prefix>regate} existed: on inbound
   * the gate strips every {@code sluice-*} header, so such a record is gated again as a fresh
   * event (one more decision, never a forged ticket believed).
   */
  private static Set<String> returnTopics(Topics topics) {
    Set<String> allowed = new HashSet<>(topics.returnTopics());
    allowed.add(topics.inbound());
    return Set.copyOf(allowed);
  }

  private void returnHome(Waiting w, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    // A high event returning to ready goes to ready.high: a dispatcher's retry or parking names
    // ready whatever the class, which the record's sluice-priority header carries (ReadyTopic).
    String to = ReadyTopic.releaseTo(topics, w.what().returnTo(), record.headers());
    // Stamped with its due time: for a paid record that is the instant it was admitted.
    send(w, new ProducerRecord<>(to, null, w.what().notBefore(), record.key(), record.value(),
        traced(w, "released", to, now)));
    listener.released(to, now - w.what().notBefore());
  }

  private void hop(Waiting w, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    String next = topics.delay(ladder.stepFor(w.what().notBefore() - now));
    send(w, new ProducerRecord<>(next, null, now, record.key(), record.value(), traced(w, "hopped", next, now)));
    listener.hopped(record.topic(), next);
  }

  /**
   * The record's headers for {@code to}; with tracing on, its time in this delay topic (from its
   * write there to now) is a span, child of the {@code traceparent} it carries, which the copy
   * carries on in its place.
   */
  private Headers traced(Waiting w, String hop, String to, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    Headers headers = copy(record.headers());
    if (!tracer.enabled()) {
      return headers;
    }
    StageSpan span = tracer.begin("sluice.relay", TraceHeaders.parent(headers), Math.min(record.timestamp(), now))
        .set("sluice.hop", hop)
        .set("sluice.from", record.topic())
        .set("sluice.to", to)
        .set("sluice.not_before", w.what().notBefore())
        .set("sluice.late_ms", Math.max(0, now - w.what().notBefore()));
    if (record.key() != null) {
      span.set("sluice.tenant", new String(record.key(), StandardCharsets.UTF_8));
    }
    HeaderValues.last(headers, HeaderNames.REASON).ifPresent(r -> span.set("sluice.reason", r));
    span.end(now);
    return TraceHeaders.carry(headers, span.context());
  }

  private void deadLetter(Waiting w, String detail, byte[] value, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    Headers headers = copy(record.headers());
    new DeadLetter(Reason.INVALID.code(), detail, where(record), null,
        HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(now), null).writeTo(headers);
    send(w, new ProducerRecord<>(topics.dlq(), null, now, record.key(), value, headers));
    listener.deadLettered(detail);
  }

  private static String where(ConsumerRecord<byte[], byte[]> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  /**
   * A record whose produce Kafka refused for a reason of its own. To its return topic: it is
   * dead-lettered with that reason. Its dead letter, too large for the DLQ: without its value (the
   * detail says where the original is, kept for the delay topic's retention). Its dead letter,
   * refused otherwise (the DLQ may not be written): sent again, and it fails again until an
   * operator fixes the DLQ; its partition's commit stays below it, as it must, since nothing else
   * may take the record.
   */
  private void unsendable(Waiting w, Refusal refusal, long now) {
    ConsumerRecord<byte[], byte[]> record = w.record();
    if (!refusal.topic().equals(topics.dlq())) {
      deadLetter(w, "cannot be relayed to " + refusal.topic() + ": " + refusal.error(), record.value(), now);
    } else if (refusal.kind() == SendFailure.TOO_LARGE && record.value() != null) {
      String why = w.what().valid() ? "cannot be relayed (" + refusal.error() + ")" : w.what().problem();
      deadLetter(w, why + " [value of " + record.value().length + " bytes left out, too large for "
          + topics.dlq() + "; the original is at " + where(record) + "]", null, now);
    } else {
      LOG.error("relay: {} refuses the dead letter of {} ({}); sending it again", topics.dlq(), where(record),
          refusal.error());
      deadLetter(w, w.what().valid() ? "cannot be relayed: " + refusal.error() : w.what().problem(),
          record.value(), now);
    }
  }

  /** Sends what {@code w} becomes, in the open transaction: the only produce for it. */
  private void send(Waiting w, ProducerRecord<byte[], byte[]> out) {
    if (!inTransaction) {
      producer.beginTransaction();
      inTransaction = true;
    }
    Future<RecordMetadata> ack;
    try {
      ack = producer.send(out);
    } catch (InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      // Refused before it left (e.g. no metadata in time): a failed produce like any other.
      ack = CompletableFuture.failedFuture(e);
    }
    inFlight.add(new Sent(w, out.topic(), ack));
  }

  /** A record on a delay partition. */
  private record Source(TopicPartition partition, long offset) {}

  /** A produce in flight: the record it stands for, and where it goes. */
  private record Sent(Waiting source, String topic, Future<RecordMetadata> ack) {
    Source from() {
      return new Source(source.partition(), source.record().offset());
    }
  }

  /** Why Kafka refused a record for a reason of its own, and where it was sent. */
  private record Refusal(String topic, SendFailure kind, String error) {}

  /**
   * Ends the open transaction: commits it, with each partition's ledger as it stands with the
   * round released, if every produce was acknowledged; else aborts it, and its records are held
   * again.
   */
  private void settle() {
    if (!inTransaction) {
      return;
    }
    List<Sent> round = List.copyOf(inFlight);
    inFlight.clear();
    Failure failure;
    try {
      failure = awaitRound(round);
      Set<TopicPartition> partitions = new HashSet<>();
      round.forEach(sent -> partitions.add(sent.source().partition()));
      if (failure == null && !consumer.assignment().containsAll(partitions)) {
        failure = new Failure("a partition of the round is no longer ours", true);
      }
      if (failure == null) {
        commitRound(partitions);
        held.committed(round.stream().map(Sent::source).toList());
        return;
      }
    } catch (WakeupException | InterruptException e) {
      abortQuietly();
      unrelease(round, new Failure(e.toString(), false));
      throw e;
    } catch (KafkaException e) {
      // Abortable: the group fenced us (a rebalance), the transaction timed out, a coordinator
      // moved. A fatal error (a fenced producer) fails the abort too, and ends the loop.
      failure = new Failure(e.toString(), true);
    }
    abortRound(round, failure);
  }

  /** Why a round was aborted; {@code pause}: wait {@link #RETRY_MILLIS} before the next try. */
  private record Failure(String why, boolean pause) {}

  /**
   * Waits for the round's produces. Returns null if every one was acknowledged, else why not (a
   * refusal of the record's own is remembered).
   */
  private Failure awaitRound(List<Sent> round) {
    producer.flush(); // throws only if interrupted: the round is aborted
    Throwable first = null;
    boolean pause = false;
    for (Sent sent : round) {
      try {
        sent.ack().get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        first = first == null ? cause : first;
        if (SendFailure.isTheRecords(cause)) {
          refused.put(sent.from(), new Refusal(sent.topic(), SendFailure.of(cause), cause.toString()));
          // A dead letter refused has nowhere else to go: its next try waits, as a retry does.
          pause |= sent.topic().equals(topics.dlq());
        } else {
          pause = true; // the broker, the transaction: not this record's doing
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptException(e);
      }
    }
    return first == null ? null : new Failure(first.toString(), pause);
  }

  /** Commits the round with each of its partitions' commit: lowest record not released, and the ledger. */
  private void commitRound(Set<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      OffsetLedger ledger = held.ledger(tp);
      offsets.put(tp, new OffsetAndMetadata(ledger.committable().getAsLong(),
          ledger.metadata(METADATA_FORMAT, SettledOffsetsCodec.BROKER_DEFAULT_MAX_BYTES)));
    }
    producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
    commitTransaction();
  }

  /**
   * Commits the open transaction. A commit that timed out may still complete, and the producer
   * then allows only the same call again, never an abort (an abort throws IllegalStateException,
   * which would end the relay). So a timed-out commit is retried for as long as the relay runs: a
   * relay that cannot reach its coordinator cannot make progress anyway. On the way out it is left
   * in doubt ({@link CommitInDoubt}, not a KafkaException, so nothing tries to abort it): closing
   * the producer leaves the coordinator to complete or abort it, and either way the records are
   * relayed once (a new owner reads the committed offsets and the ledger).
   */
  private void commitTransaction() {
    for (int attempt = 1; ; attempt++) {
      try {
        producer.commitTransaction();
        inTransaction = false;
        return;
      } catch (TimeoutException e) {
        if (!running.get()) {
          throw new CommitInDoubt(e);
        }
        LOG.warn("relay: committing the round timed out (attempt {}: {}); trying again", attempt,
            e.toString());
      }
    }
  }

  /** A commit that timed out while the relay was stopping: neither retried nor aborted. */
  static final class CommitInDoubt extends RuntimeException {
    CommitInDoubt(TimeoutException cause) {
      super("the round's commit timed out while stopping; the coordinator completes or aborts it",
          cause);
    }
  }

  /**
   * Aborts the round: none of its records is seen by a read_committed reader, and no offset of it
   * is committed. Its records are held again, and their partitions send nothing for
   * {@link #RETRY_MILLIS} unless only refusals of the records' own caused it (those are
   * dead-lettered at the next try, at once).
   */
  private void abortRound(List<Sent> round, Failure failure) {
    abortTransaction();
    unrelease(round, failure);
    LOG.warn("relay: round of {} records aborted ({}); relaying them again{}", round.size(), failure.why(),
        failure.pause() ? " in " + RETRY_MILLIS + " ms" : "");
  }

  /** The round's records were not released after all: held again, in partitions still ours. */
  private void unrelease(List<Sent> round, Failure failure) {
    long retryAt = failure.pause() ? clock.millis() + RETRY_MILLIS : Long.MIN_VALUE;
    for (Sent sent : round) {
      held.unrelease(sent.source(), retryAt);
    }
  }

  private void abortTransaction() {
    endTransaction(producer::abortTransaction, "aborting");
  }

  /** Aborts the open transaction, trying again (at most {@link #END_ATTEMPTS}) if it times out. */
  private void endTransaction(Runnable end, String doing) {
    for (int attempt = 1; ; attempt++) {
      try {
        end.run();
        inTransaction = false;
        return;
      } catch (TimeoutException e) {
        if (attempt == END_ATTEMPTS) {
          throw e;
        }
        LOG.warn("relay: {} the round timed out ({}); trying again", doing, e.toString());
      }
    }
  }

  private void abortQuietly() {
    try {
      producer.abortTransaction();
      inTransaction = false;
    } catch (RuntimeException e) {
      LOG.warn("relay: could not abort the round ({}); the coordinator aborts it after its timeout", e.toString());
    }
  }

  /** On the way out or before a rebalance: ends the open transaction, committing only what is acknowledged. */
  private void settleQuietly() {
    try {
      settle();
    } catch (RuntimeException e) {
      LOG.warn("relay: could not end the round ({}); its records will be relayed again", e.toString());
    }
  }

  /**
   * Until the earliest record held falls due, a partition's retry wait ends, or commits not read
   * yet are to be looked up again; at most {@link #MAX_POLL_MILLIS}.
   */
  private long pollTimeout() {
    long now = clock.millis();
    // Not yet on Redis's clock: nothing is due, whatever the host's clock says; look again soon.
    long wait = mayRelease.getAsBoolean() ? held.wait(now, MAX_POLL_MILLIS)
        : Math.min(MAX_POLL_MILLIS, UNSAMPLED_POLL_MILLIS);
    if (!unknown.isEmpty()) {
      wait = Math.min(wait, Math.max(0, lookUpAt - now));
    }
    return wait;
  }

  private static Headers copy(Headers headers) {
    return new RecordHeaders(headers.toArray());
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      settleQuietly(); // (the loop ends each round before it polls: nothing is open here, normally)
      forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      // A partition we get (back) starts from its commit, skipping what its ledger says went.
      lookUp(Set.copyOf(partitions), LOOKUP_TIMEOUT);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      // Their new owner relays them; no round is open while the consumer polls.
      forget(partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
      held.forget(partitions);
      unknown.removeAll(partitions);
      refused.keySet().removeIf(s -> partitions.contains(s.partition()));
    }
  }
}
