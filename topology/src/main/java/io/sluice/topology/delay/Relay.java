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
 * <p>At least once: an offset is committed only once the produces of every record below it are
 * acknowledged, and a partition with a failed produce is relayed again from that record; a crash
 * in between returns a record twice, which the consumers downstream absorb (the gate charges a
 * replay, which is stricter; providers get an idempotency key).
 */
public final class Relay implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
  private static final long MAX_POLL_MILLIS = 500;
  /** How long a partition waits after a failed produce before the relay sends from it again. */
  static final long RETRY_MILLIS = 1000;

  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> producer;
  private final Topics topics;
  private final DelayLadder ladder;
  private final Set<String> returnTopics;
  private final Map<String, Duration> stepOfTopic = new HashMap<>();
  private final Clock clock;
  private final RelayListener listener;
  private final Map<TopicPartition, Long> resumeAt = new HashMap<>();
  // The round: one produce per record relayed since the relay last settled, in the order of each
  // partition. A partition's offset moves to `acknowledged` only up to its first produce that was
  // not acknowledged, and only `acknowledged` is ever committed: no commit can cover a record
  // whose produce was not acknowledged.
  private final List<Sent> inFlight = new ArrayList<>();
  /** Offsets below which every produce was acknowledged, not yet committed. */
  private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();
  private final AtomicBoolean running = new AtomicBoolean(true);

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
    consumer.subscribe(topics.delays(), new Rebalance());
    try {
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

  private void relay(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch) {
    Duration step = stepOfTopic.get(tp.topic());
    for (ConsumerRecord<byte[], byte[]> record : batch) {
      long now = clock.millis();
      HeldRecord held = HeldRecord.read(record.headers(), record.value(), returnTopics);
      if (!held.valid()) {
        deadLetter(record, held.problem(), now);
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

  private void deadLetter(ConsumerRecord<byte[], byte[]> record, String detail, long now) {
    Headers headers = copy(record.headers());
    String source = record.topic() + "-" + record.partition() + "@" + record.offset();
    new DeadLetter(Reason.INVALID.code(), detail, source, null,
        HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(now), null).writeTo(headers);
    send(record, new ProducerRecord<>(topics.dlq(), null, now, record.key(), record.value(), headers));
    listener.deadLettered(detail);
  }

  /** Sends what {@code source} becomes: the only produce for it, which settles its offset. */
  private void send(ConsumerRecord<byte[], byte[]> source, ProducerRecord<byte[], byte[]> out) {
    TopicPartition from = new TopicPartition(source.topic(), source.partition());
    Future<RecordMetadata> ack;
    try {
      ack = producer.send(out);
    } catch (InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      // Refused before it left (e.g. no metadata in time): a failed produce like any other.
      ack = CompletableFuture.failedFuture(e);
    }
    inFlight.add(new Sent(from, source.offset(), ack));
  }

  /** A produce in flight, and the record on a delay partition it stands for. */
  private record Sent(TopicPartition source, long offset, Future<RecordMetadata> ack) {}

  /** Waits for every produce of this round, then commits what is acknowledged. */
  private void settle() {
    if (inFlight.isEmpty() && acknowledged.isEmpty()) {
      return;
    }
    awaitRound();
    commit();
  }

  /**
   * Waits for the round's produces. On each partition, the offsets up to its first produce that
   * failed are acknowledged; from that record on, the partition is relayed again after
   * {@link #RETRY_MILLIS} (duplicates of what did get written after it, never a loss). The round
   * is forgotten before anything that can throw, so nothing of it can be committed unless it was
   * acknowledged.
   */
  private void awaitRound() {
    List<Sent> round = List.copyOf(inFlight);
    inFlight.clear();
    producer.flush(); // throws only if interrupted: the loop ends, nothing of this round acknowledged
    Set<TopicPartition> ours = consumer.assignment();
    Map<TopicPartition, Long> written = new HashMap<>();
    Map<TopicPartition, Long> failedAt = new HashMap<>();
    Throwable failure = null;
    for (Sent sent : round) {
      if (failedAt.containsKey(sent.source())) {
        continue; // after a failure on its partition: relayed again whatever became of it
      }
      try {
        sent.ack().get();
        written.put(sent.source(), sent.offset() + 1);
      } catch (ExecutionException e) {
        failedAt.put(sent.source(), sent.offset());
        failure = e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptException(e); // nothing of this round is acknowledged
      }
    }
    written.forEach((tp, next) -> {
      if (ours.contains(tp)) {
        acknowledged.merge(tp, new OffsetAndMetadata(next), (a, b) -> a.offset() >= b.offset() ? a : b);
      }
    });
    if (!failedAt.isEmpty()) {
      LOG.warn("relay: a produce failed ({}); relaying again from {} in {} ms", failure, failedAt, RETRY_MILLIS);
      retry(failedAt, ours);
    }
  }

  private void commit() {
    if (acknowledged.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(new HashMap<>(acknowledged));
      acknowledged.clear();
    } catch (WakeupException | InterruptException e) {
      throw e; // close() or an interrupt: the loop ends (and tries once more on its way out)
    } catch (KafkaException e) {
      // A rebalance, a group coordinator change or a timeout. The records are relayed already;
      // keep the offsets of partitions still ours and commit them with the next round (a partition
      // lost meanwhile is relayed again by its new owner: duplicates, never a loss). Letting the
      // exception end the loop would stop the relay silently.
      acknowledged.keySet().retainAll(consumer.assignment());
      LOG.warn("relay: commit failed ({}); retrying with the next round", e.toString());
    }
  }

  /** On the way out or before a rebalance: commits what is acknowledged, and never more. */
  private void settleQuietly() {
    try {
      settle();
    } catch (RuntimeException e) {
      LOG.warn("relay: could not commit on shutdown ({}); the records will be relayed again", e.toString());
    }
  }

  /**
   * Back to the first record whose produce failed, on each partition still ours, and a pause of
   * {@link #RETRY_MILLIS} there (a broker refusing every produce is not asked again at once). A
   * local seek, no broker call: it cannot time out, so a failed produce cannot leave a partition
   * positioned past records that were never written.
   */
  private void retry(Map<TopicPartition, Long> firstFailed, Set<TopicPartition> ours) {
    long at = clock.millis() + RETRY_MILLIS;
    List<TopicPartition> pause = new ArrayList<>();
    firstFailed.forEach((tp, offset) -> {
      if (ours.contains(tp)) {
        consumer.seek(tp, offset);
        resumeAt.put(tp, at);
        pause.add(tp);
      }
    });
    consumer.pause(pause);
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
      settleQuietly();
      partitions.forEach(resumeAt::remove);
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
      // Their new owner relays them again. The produces in flight still settle the round: those of
      // the partitions kept must be acknowledged before their offsets are committed (the lost ones
      // are no longer in the assignment, so they are not acknowledged).
      acknowledged.keySet().removeAll(partitions);
      partitions.forEach(resumeAt::remove);
    }
  }
}
