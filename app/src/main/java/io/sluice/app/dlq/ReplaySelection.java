package io.sluice.app.dlq;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.time.Duration;

/**
 * Which dead letters a replay sends, decided one dead letter at a time as the topic is read, with
 * no I/O and the time passed in: the replay's whole judgement, so that a test can state it.
 *
 * <p>A dead letter the query matches is sent unless
 * <ul>
 *   <li>the ledger says it was replayed already ({@link Verdict#ALREADY_REPLAYED}): running the
 *       same replay twice sends nothing twice;
 *   <li>another dead letter of the same death of its event was replayed, or is sent in this run
 *       ({@link Verdict#EVENT_REPLAYED}; see {@link ReplayedEvents}): one attempt's dead letter
 *       written twice is replayed once;
 *   <li>{@code sluice.outcomes} holds an outcome of its event ({@link Verdict#DELIVERED}): the
 *       provider took it (a duplicate of the event was delivered beside the one that died), and
 *       a replay would call it again. Known only after the selection, from the outcomes read
 *       since the selected events were first seen ({@link #delivered});
 *   <li>its value is not there ({@link Verdict#NO_VALUE}): Sluice left it out because it was too
 *       large for the dead-letter topic (the detail says where the original was read), or the
 *       original had none. Nothing can be replayed from it;
 *   <li>its deadline has passed ({@link Verdict#DEADLINE_PASSED}): the gate would dead-letter it
 *       again at once as {@code expired}, and the value is the producer's, not ours to extend;
 *   <li>it is not Sluice's dead letter at all, having no {@code sluice-reason}
 *       ({@link Verdict#NOT_A_DEAD_LETTER}).
 * </ul>
 * The limit counts the dead letters sent, and so does a budget of {@link #MAX_BYTES} value bytes
 * per run: a replay run again goes on where the last one stopped.
 */
public final class ReplaySelection {
  /** What becomes of one dead letter the query matched. */
  public enum Verdict {
    SEND, ALREADY_REPLAYED, EVENT_REPLAYED, DELIVERED, NO_VALUE, DEADLINE_PASSED, NOT_A_DEAD_LETTER
  }

  /**
   * The value bytes one run sends at most (the selected events are held in memory until sent): a
   * dead letter may be a megabyte, and 10,000 of them would not fit a small heap.
   */
  public static final long MAX_BYTES = 64L << 20;

  private final DeadLetterQuery query;
  private final ReplayedEvents replayed;
  /** The deaths the ledger answered, and those this run sends. */
  private final Set<ReplayedEvents.Death> answered;
  private final Instant now;
  private final long maxBytes;
  private final List<DeadLetterEntry> toSend = new ArrayList<>();
  private final List<DeadLetterEntry> delivered = new ArrayList<>();
  private long bytes;
  private boolean stopped;
  private final Map<Verdict, Long> skipped = new EnumMap<>(Verdict.class);

  /**
   * @param replayed the ledger: coordinates ({@link DeadLetterEntry#at}) of dead letters replayed
   * @param now      the time deadlines are judged against
   */
  public ReplaySelection(DeadLetterQuery query, Set<String> replayed, Instant now) {
    this(query, ReplayedEvents.ofCoordinates(replayed), now, MAX_BYTES);
  }

  /** @param replayed the ledger as read */
  ReplaySelection(DeadLetterQuery query, ReplayedEvents replayed, Instant now) {
    this(query, replayed, now, MAX_BYTES);
  }

  /** @param maxBytes value bytes to select at most (the dead letter that crosses it is taken) */
  public ReplaySelection(DeadLetterQuery query, Set<String> replayed, Instant now,
      long maxBytes) {
    this(query, ReplayedEvents.ofCoordinates(replayed), now, maxBytes);
  }

  ReplaySelection(DeadLetterQuery query, ReplayedEvents replayed, Instant now, long maxBytes) {
    this.query = query;
    this.replayed = replayed;
    this.answered = new HashSet<>(replayed.deaths());
    this.now = now;
    this.maxBytes = maxBytes;
  }

  /** The verdict on one dead letter the query matched, against positions replayed only. */
  public static Verdict verdict(DeadLetterEntry e, Set<String> replayed, Instant now) {
    return verdict(e, ReplayedEvents.ofCoordinates(replayed), Set.of(), now);
  }

  private static Verdict verdict(DeadLetterEntry e, ReplayedEvents replayed,
      Set<ReplayedEvents.Death> answered, Instant now) {
    if (e.meta() == null) {
      return Verdict.NOT_A_DEAD_LETTER;
    }
    if (replayed.holds(e.at())) {
      return Verdict.ALREADY_REPLAYED;
    }
    if (answered.contains(ReplayedEvents.Death.of(e))) {
      return Verdict.EVENT_REPLAYED;
    }
    if (e.value() == null) {
      return Verdict.NO_VALUE;
    }
    if (e.deadline() != null && !e.deadline().isAfter(now)) {
      return Verdict.DEADLINE_PASSED;
    }
    return Verdict.SEND;
  }

  /**
   * Takes one dead letter as read.
   *
   * @return false once the limit is reached: the rest of the topic need not be read
   */
  public boolean offer(DeadLetterEntry e) {
    if (full()) {
      return false;
    }
    if (query.matches(e)) {
      Verdict v = verdict(e, replayed, answered, now);
      if (v == Verdict.SEND) {
        toSend.add(e);
        bytes += e.value().length;
        ReplayedEvents.Death death = ReplayedEvents.Death.of(e);
        if (death != null) {
          answered.add(death);
        }
      } else {
        skipped.merge(v, 1L, Long::sum);
      }
    }
    stopped = full();
    return !stopped;
  }

  /**
   * Whether the limit or the byte budget was reached: the run sends no more (and stays full when
   * {@link #delivered} takes some out: the rest of the topic was not read).
   */
  public boolean full() {
    return stopped || toSend.size() >= query.limit() || bytes >= maxBytes;
  }

  /**
   * The event ids whose outcomes decide {@link #delivered}: those of the dead letters selected.
   */
  public Set<String> eventIds() {
    Set<String> ids = new HashSet<>();
    toSend.forEach(e -> {
      if (e.eventId() != null) {
        ids.add(e.eventId());
      }
    });
    return ids;
  }

  /**
   * Where an outcome of a selected event can be, at the earliest: the earliest first-seen of the
   * selected dead letters (no outcome precedes its event's first sight), less {@code skew} for the
   * clocks of the gate that stamped it and the dispatcher that wrote the outcome, never before the
   * epoch; the epoch when a selected dead letter does not say (read the whole topic), empty when
   * nothing is selected.
   */
  public Optional<Instant> outcomesFrom(Duration skew) {
    Instant from = null;
    for (DeadLetterEntry e : toSend) {
      Long seen = e.meta().firstSeen();
      Instant at = seen == null ? Instant.EPOCH : Instant.ofEpochMilli(seen).minus(skew);
      if (at.isBefore(Instant.EPOCH)) {
        at = Instant.EPOCH; // Kafka's offsetsForTimes refuses a time before it
      }
      from = from == null || at.isBefore(from) ? at : from;
    }
    return Optional.ofNullable(from);
  }

  /**
   * The selected dead letters whose events {@code sluice.outcomes} shows delivered leave the
   * selection ({@link Verdict#DELIVERED}); the replay records them in the ledger as settled, so
   * a later run does not select them again.
   *
   * @param deliveredIds the ids, among {@link #eventIds}, that have an outcome
   */
  public void delivered(Set<String> deliveredIds) {
    for (Iterator<DeadLetterEntry> it = toSend.iterator(); it.hasNext(); ) {
      DeadLetterEntry e = it.next();
      if (e.eventId() != null && deliveredIds.contains(e.eventId())) {
        it.remove();
        bytes -= e.value().length;
        delivered.add(e);
        skipped.merge(Verdict.DELIVERED, 1L, Long::sum);
      }
    }
  }

  /** The selected dead letters found delivered, in the order read. */
  public List<DeadLetterEntry> deliveredLetters() {
    return Collections.unmodifiableList(delivered);
  }

  /** The dead letters to send, in the order read. */
  public List<DeadLetterEntry> toSend() {
    return Collections.unmodifiableList(toSend);
  }

  /** How many matching dead letters were not sent, by why. */
  public Map<Verdict, Long> skipped() {
    return Collections.unmodifiableMap(skipped);
  }
}
