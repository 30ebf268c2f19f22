package io.sluice.app.dlq;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which dead letters a replay sends, decided one dead letter at a time as the topic is read, with
 * no I/O and the time passed in: the replay's whole judgement, so that a test can state it.
 *
 * <p>A dead letter the query matches is sent unless
 * <ul>
 *   <li>the ledger says it was replayed already ({@link Verdict#ALREADY_REPLAYED}): running the
 *       same replay twice sends nothing twice;
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
  public enum Verdict { SEND, ALREADY_REPLAYED, NO_VALUE, DEADLINE_PASSED, NOT_A_DEAD_LETTER }

  /**
   * The value bytes one run sends at most (the selected events are held in memory until sent): a
   * dead letter may be a megabyte, and 10,000 of them would not fit a small heap.
   */
  public static final long MAX_BYTES = 64L << 20;

  private final DeadLetterQuery query;
  private final Set<String> replayed;
  private final Instant now;
  private final long maxBytes;
  private final List<DeadLetterEntry> toSend = new ArrayList<>();
  private long bytes;
  private final Map<Verdict, Long> skipped = new EnumMap<>(Verdict.class);

  /**
   * @param replayed the ledger: coordinates ({@link DeadLetterEntry#at}) of dead letters replayed
   * @param now      the time deadlines are judged against
   */
  public ReplaySelection(DeadLetterQuery query, Set<String> replayed, Instant now) {
    this(query, replayed, now, MAX_BYTES);
  }

  /** @param maxBytes value bytes to select at most (the dead letter that crosses it is taken) */
  public ReplaySelection(DeadLetterQuery query, Set<String> replayed, Instant now,
      long maxBytes) {
    this.query = query;
    this.replayed = Set.copyOf(replayed);
    this.now = now;
    this.maxBytes = maxBytes;
  }

  /** The verdict on one dead letter the query matched. */
  public static Verdict verdict(DeadLetterEntry e, Set<String> replayed, Instant now) {
    if (e.meta() == null) {
      return Verdict.NOT_A_DEAD_LETTER;
    }
    if (replayed.contains(e.at())) {
      return Verdict.ALREADY_REPLAYED;
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
      Verdict v = verdict(e, replayed, now);
      if (v == Verdict.SEND) {
        toSend.add(e);
        bytes += e.value().length;
      } else {
        skipped.merge(v, 1L, Long::sum);
      }
    }
    return !full();
  }

  /** Whether the limit or the byte budget is reached: the run sends no more. */
  public boolean full() {
    return toSend.size() >= query.limit() || bytes >= maxBytes;
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
