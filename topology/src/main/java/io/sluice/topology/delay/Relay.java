package io.sluice.topology.delay;

import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
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
 * The waiting room: holds each delay partition until its head record is due, then returns the
 * record to the topic named in its {@code sluice-return-to} header.
 *
 * <p>No thread sleeps per record and nothing busy-polls. When a partition's head is not yet due,
 * the relay seeks back to it and pauses the partition; {@code poll} then waits (still heartbeating)
 * at most until the earliest paused partition is due, and returns sooner if an unpaused partition
 * has records. Records leave a step topic at {@code min(notBefore, placed + step)} (see
 * {@link DelayLadder}); a record whose not-before is still ahead then hops to a smaller step.
 *
 * <p>Never early: a record goes to its return topic only when the relay's clock has reached its
 * not-before. Not-befores are stamped on Redis's clock, so {@link RelayService} gives the relay a
 * lower bound of Redis's clock ({@link io.sluice.topology.redis.RedisTimeClock}), not the host's.
 *
 * <h2>Exactly once to read_committed readers</h2>
 * Each round (what one poll let through) is one Kafka transaction: the records it relays and the
 * delay offsets past them are committed together ({@code sendOffsetsToTransaction} with the
 * consumer's group metadata, so a relay that lost its partitions in a rebalance cannot commit for
 * them). A SIGKILL between the produces and the commit, which used to release the round a second
 * time, now leaves an open transaction that the coordinator aborts (after
 * {@code transaction.timeout.ms}): its records are never seen by the dispatcher, the gate or the
 * next relay, which all read committed, and the next owner relays them once. A produce that fails
 * aborts the whole round; each partition of the round is relayed again from its first record of
 * the round. Nothing is committed past a record whose produce was not acknowledged, because
 * nothing is committed at all unless every produce of the round was.
 *
 * <h2>A record Kafka will never take</h2>
 * A produce refused for a reason of the record's own ({@link SendFailure#isTheRecords}: too large,
 * a topic that may not be written) would abort its round for ever. The relay remembers it, and on
 * reading it again dead-letters it with that reason instead; a dead letter too large for the DLQ
 * goes without its value. Any other failure (a timeout, a leader moving, the broker away) is tried
 * again after {@link #RETRY_MILLIS}.
 */
public final class Relay implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
  private static final long MAX_POLL_MILLIS = 500;
  /** How long a partition waits after a failed round before the relay sends from it again. */
  static final long RETRY_MILLIS = 1000;
  /** Times a commit or an abort that timed out is tried again before the relay gives up. */
  private static final int END_ATTEMPTS = 3;

  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> producer;
  private final Topics topics;
  private final DelayLadder ladder;
  private final Set<String> returnTopics;
  private final Map<String, Duration> stepOfTopic = new HashMap<>();
  private final Clock clock;
  private final RelayListener listener;
  private final Map<TopicPartition, Long> resumeAt = new HashMap<>();
  /** The open transaction's produces, one per record relayed, in each partition's order. */
  private final List<Sent> inFlight = new ArrayList<>();
  /** Each partition's first offset relayed in the open transaction: where an abort goes back to. */
  private final Map<TopicPartition, Long> roundStart = new HashMap<>();
  /** Records Kafka refused for a reason of their own, dead-lettered when read again. */
  private final Map<Source, Refusal> refused = new HashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private boolean inTransaction;

  /**
   * @param producer a transactional producer ({@code transactional.id} set), not yet initialised:
   *                 the relay's thread initialises it
   */
  public Relay(
      Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer, Topics topics,
      Clock clock, RelayListener listener) {
    this.consumer = consumer;
    this.producer = producer;
    this.topics = topics;
    this.ladder = new DelayLadder(topics.ladder());
    this.returnTopics = returnTopics(topics);
    for (Duration step : topics.ladder()) {
      stepOfTopic.put(topics.delay(step), step);
    }
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
        resumeDue();
        for (TopicPartition tp : records.partitions()) {
          relay(tp, records.records(tp));
        }
        settle();
      }
    } catch (WakeupException e) {
      if (running.get()) {
        LOG.error("relay: woken up while running; the relay stops", e);
        throw e;
      }
    } catch (RuntimeException e) {
      LOG.error("relay: stopped by an unexpected error (health reports it DOWN)", e);
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

  private void relay(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch) {
    Duration step = stepOfTopic.get(tp.topic());
    for (ConsumerRecord<byte[], byte[]> record : batch) {
      long now = clock.millis();
      Refusal refusal = refused.remove(new Source(tp, record.offset()));
      if (refusal != null) {
        unsendable(record, refusal, now);
        continue;
      }
      HeldRecord held = HeldRecord.read(record.headers(), record.value(), returnTopics);
      if (!held.valid()) {
        deadLetter(record, held.problem(), record.value(), now);
      } else {
        // (each branch below sends exactly one record, for this source record)
        long release = DelayLadder.releaseAt(record.timestamp(), held.notBefore(), step);
        if (now < release) {
          consumer.seek(tp, record.offset());
          consumer.pause(Set.of(tp));
          resumeAt.put(tp, release);
          return;
        }
        if (now >= held.notBefore()) {
          returnHome(record, held, now);
        } else {
          hop(record, held.notBefore(), now);
        }
      }
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

  private void returnHome(ConsumerRecord<byte[], byte[]> record, HeldRecord held, long now) {
    // Stamped with its due time: for a paid record that is the instant it was admitted.
    send(record, new ProducerRecord<>(held.returnTo(), null, held.notBefore(), record.key(), record.value(),
        copy(record.headers())));
    listener.released(held.returnTo(), now - held.notBefore());
  }

  private void hop(ConsumerRecord<byte[], byte[]> record, long due, long now) {
    String next = topics.delay(ladder.stepFor(due - now));
    send(record, new ProducerRecord<>(next, null, now, record.key(), record.value(), copy(record.headers())));
    listener.hopped(record.topic(), next);
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> record, String detail, byte[] value, long now) {
    Headers headers = copy(record.headers());
    String source = record.topic() + "-" + record.partition() + "@" + record.offset();
    new DeadLetter(Reason.INVALID.code(), detail, source, null,
        HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(now), null).writeTo(headers);
    send(record, new ProducerRecord<>(topics.dlq(), null, now, record.key(), value, headers));
    listener.deadLettered(detail);
  }

  /**
   * A record whose produce Kafka refused for a reason of its own. To its return topic: it is
   * dead-lettered with that reason. Its dead letter, too large for the DLQ: without its value (the
   * detail says where the original is, kept for the delay topic's retention). Its dead letter,
   * refused otherwise (the DLQ may not be written): sent again, and it fails again until an
   * operator fixes the DLQ; the partition waits behind it, as it must, since nothing else may take
   * the record.
   */
  private void unsendable(ConsumerRecord<byte[], byte[]> record, Refusal refusal, long now) {
    String source = record.topic() + "-" + record.partition() + "@" + record.offset();
    if (!refusal.topic().equals(topics.dlq())) {
      deadLetter(record, "cannot be relayed to " + refusal.topic() + ": " + refusal.error(), record.value(), now);
    } else if (refusal.kind() == SendFailure.TOO_LARGE && record.value() != null) {
      HeldRecord held = HeldRecord.read(record.headers(), record.value(), returnTopics);
      String why = held.valid() ? "cannot be relayed (" + refusal.error() + ")" : held.problem();
      deadLetter(record, why + " [value of " + record.value().length + " bytes left out, too large for "
          + topics.dlq() + "; the original is at " + source + "]", null, now);
    } else {
      LOG.error("relay: {} refuses the dead letter of {} ({}); sending it again", topics.dlq(), source,
          refusal.error());
      HeldRecord held = HeldRecord.read(record.headers(), record.value(), returnTopics);
      deadLetter(record, held.valid() ? "cannot be relayed: " + refusal.error() : held.problem(),
          record.value(), now);
    }
  }

  /** Sends what {@code source} becomes, in the open transaction: the only produce for it. */
  private void send(ConsumerRecord<byte[], byte[]> source, ProducerRecord<byte[], byte[]> out) {
    TopicPartition from = new TopicPartition(source.topic(), source.partition());
    if (!inTransaction) {
      producer.beginTransaction();
      inTransaction = true;
    }
    roundStart.putIfAbsent(from, source.offset());
    Future<RecordMetadata> ack;
    try {
      ack = producer.send(out);
    } catch (InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      // Refused before it left (e.g. no metadata in time): a failed produce like any other.
      ack = CompletableFuture.failedFuture(e);
    }
    inFlight.add(new Sent(new Source(from, source.offset()), out.topic(), ack));
  }

  /** A record on a delay partition. */
  private record Source(TopicPartition partition, long offset) {}

  /** A produce in flight: the record it stands for, and where it goes. */
  private record Sent(Source source, String topic, Future<RecordMetadata> ack) {}

  /** Why Kafka refused a record for a reason of its own, and where it was sent. */
  private record Refusal(String topic, SendFailure kind, String error) {}

  /**
   * Ends the open transaction: commits it with the offsets past its records if every produce was
   * acknowledged, else aborts it and goes back to each partition's first record of the round.
   */
  private void settle() {
    if (!inTransaction) {
      return;
    }
    List<Sent> round = List.copyOf(inFlight);
    Map<TopicPartition, Long> starts = Map.copyOf(roundStart);
    inFlight.clear();
    roundStart.clear();
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    Failure failure;
    try {
      failure = awaitRound(round, offsets);
      if (failure == null && !consumer.assignment().containsAll(offsets.keySet())) {
        failure = new Failure("a partition of the round is no longer ours", true);
      }
      if (failure == null) {
        commitRound(offsets);
        return;
      }
    } catch (WakeupException | InterruptException e) {
      abortQuietly();
      throw e;
    } catch (KafkaException e) {
      // Abortable: the group fenced us (a rebalance), the transaction timed out, a coordinator
      // moved. A fatal error (a fenced producer) fails the abort too, and ends the loop.
      failure = new Failure(e.toString(), true);
    }
    abortRound(starts, failure);
  }

  /** Why a round was aborted; {@code pause}: wait {@link #RETRY_MILLIS} before the next try. */
  private record Failure(String why, boolean pause) {}

  /**
   * Waits for the round's produces and puts the offsets past them in {@code offsets}. Returns null
   * if every produce was acknowledged, else why not (a refusal of the record's own is remembered).
   */
  private Failure awaitRound(List<Sent> round, Map<TopicPartition, OffsetAndMetadata> offsets) {
    producer.flush(); // throws only if interrupted: the round is aborted
    Throwable first = null;
    boolean pause = false;
    for (Sent sent : round) {
      try {
        sent.ack().get();
        offsets.merge(sent.source().partition(), new OffsetAndMetadata(sent.source().offset() + 1),
            (a, b) -> a.offset() >= b.offset() ? a : b);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        first = first == null ? cause : first;
        if (SendFailure.isTheRecords(cause)) {
          refused.put(sent.source(), new Refusal(sent.topic(), SendFailure.of(cause), cause.toString()));
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

  private void commitRound(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (!offsets.isEmpty()) {
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
    }
    // A commit that timed out may still complete: only the same call may be made again, never an abort.
    endTransaction(producer::commitTransaction, "committing");
  }

  /**
   * Aborts the round: none of its records is seen by a read_committed reader, and no offset of it
   * is committed. Each partition of the round still ours goes back to its first record of the
   * round, after {@link #RETRY_MILLIS} unless only refusals of the records' own caused it (those
   * are dead-lettered on the next read, at once).
   */
  private void abortRound(Map<TopicPartition, Long> starts, Failure failure) {
    abortTransaction();
    Set<TopicPartition> ours = consumer.assignment();
    long at = clock.millis() + (failure.pause() ? RETRY_MILLIS : 0);
    List<TopicPartition> pause = new ArrayList<>();
    starts.forEach((tp, offset) -> {
      if (ours.contains(tp)) {
        consumer.seek(tp, offset);
        resumeAt.put(tp, at);
        pause.add(tp);
      }
    });
    consumer.pause(pause);
    LOG.warn("relay: round aborted ({}); relaying again from {}{}", failure.why(), starts,
        failure.pause() ? " in " + RETRY_MILLIS + " ms" : "");
  }

  private void abortTransaction() {
    endTransaction(producer::abortTransaction, "aborting");
  }

  /** Commits or aborts the open transaction, trying again (at most {@link #END_ATTEMPTS}) if it times out. */
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

  private long pollTimeout() {
    long now = clock.millis();
    long wait = MAX_POLL_MILLIS;
    for (long at : resumeAt.values()) {
      wait = Math.min(wait, Math.max(0, at - now));
    }
    return wait;
  }

  private void resumeDue() {
    long now = clock.millis();
    List<TopicPartition> due = new ArrayList<>();
    resumeAt.forEach((tp, at) -> {
      if (at <= now) {
        due.add(tp);
      }
    });
    if (!due.isEmpty()) {
      consumer.resume(due);
      due.forEach(resumeAt::remove);
    }
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
      // A partition we get (back) starts from its committed offset; nothing of ours is paused.
      List<TopicPartition> paused = new ArrayList<>(consumer.paused());
      paused.removeIf(resumeAt::containsKey);
      if (!paused.isEmpty()) {
        consumer.resume(paused);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      // Their new owner relays them; no round is open while the consumer polls.
      forget(partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
      partitions.forEach(resumeAt::remove);
      refused.keySet().removeIf(s -> partitions.contains(s.partition()));
    }
  }
}
