package io.sluice.dispatcher.dispatch;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Settles the entries that get no call now: dead letters decided before a call (malformed,
 * expired, no endpoint, a disabled one) and deferrals round the delay ladder (a full buffer, no
 * lane free, limits it no longer fits, a pause holding too many). None of them is an attempt:
 * the provider never saw it. Each writes one record and tells the listener.
 */
final class WithoutCall {
  /**
   * The longest an entry is parked at once: one waiting longer (a lane at a crawl, a long
   * backlog) comes back after an hour and is judged again at the pace of that moment.
   */
  static final long MAX_PARK_MILLIS = TimeUnit.HOURS.toMillis(1);
  private final SettlementWriter writer;
  private final Clock clock;
  /** What was sent round the ladder and is not due back yet, for {@code status}. */
  private final ParkedLedger ledger = new ParkedLedger();
  private final DispatchListener listener;
  private final List<Duration> ladder;
  private final int bufferSize;
  /** Ordering keys' turns: a dead letter moves its key's turn on. */
  private final KeyTurns turns;

  WithoutCall(SettlementWriter writer, DispatchListener listener, SluiceConfig config,
      Clock clock, KeyTurns turns) {
    this.turns = turns;
    this.writer = writer;
    this.clock = clock;
    this.listener = listener;
    this.ladder = List.copyOf(config.ladder());
    this.bufferSize = config.dispatcher().bufferSize();
  }

  /** Dead-letters the entry now, without a call (its ordering key's turn moves on). */
  void dead(DispatchEntry entry, Reason reason, String detail) {
    turns.dead(entry, reason);
    writer.dead(entry, reason, detail, entry.attempts());
    listener.dead(entry.event() == null ? null : entry.event().provider(), entry.tier(), reason);
  }

  /**
   * The buffer is full and this entry would be served last: it goes round the ladder and comes
   * back at its turn in its lane ({@code waitNanos}, from {@code ProviderLane.parkNanos}: behind
   * what is queued and parked before it, at the lane's paced rate), at least the smallest step.
   */
  void overflow(DispatchEntry entry, long waitNanos, String why) {
    park(entry, Reason.OVERFLOW, waitNanos, why);
  }

  /**
   * The entry's lane cannot call it within seconds (its hold, a disabled endpoint, a pause): it
   * waits in Kafka for its turn ({@code waitNanos}) instead of in memory, so it holds neither the
   * partition's commit nor its share of records ({@link Reason#PARKED}).
   */
  void park(DispatchEntry entry, long waitNanos, String why) {
    park(entry, Reason.PARKED, waitNanos, why);
  }

  /**
   * Round the ladder for {@code waitNanos} (at least the smallest step, at most
   * {@link #MAX_PARK_MILLIS}: back then, it is judged again), never past the entry's deadline:
   * it comes back at its deadline and is dead-lettered {@code expired} as it is read. One past its
   * deadline already is dead-lettered now.
   */
  private void park(DispatchEntry entry, Reason reason, long waitNanos, String why) {
    long wait = Math.max(ladder.get(0).toMillis(),
        Math.min(MAX_PARK_MILLIS, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
    Instant deadline = entry.event().deadline();
    if (deadline != null) {
      long left = deadline.toEpochMilli() - clock.millis();
      if (left <= 0) {
        dead(entry, Reason.EXPIRED, "deadline " + deadline + " passed while it waited ("
            + why + ")");
        return;
      }
      wait = Math.min(wait, left);
    }
    defer(entry, reason, why + "; back in about " + wait + " ms", wait);
  }

  /**
   * An ordered event that is not its key's head: it waits round the ladder for {@code waitMillis}
   * ({@link io.sluice.redis.order.OrderTurn.Wait}) and is judged again when it comes back
   * ({@link Reason#ORDERING}); its deadline, if it passes meanwhile, ends it as it is read.
   */
  void ordering(DispatchEntry entry, long ahead, long waitMillis) {
    defer(entry, Reason.ORDERING, (ahead == 0 ? "its ordering key's turn could not be read"
        : ahead + " event(s) of its ordering key before it have no outcome yet")
        + "; back in about " + waitMillis + " ms", waitMillis);
  }

  /** No lane could take it now (every endpoint lane busy, the registry silent): the smallest step. */
  void full(DispatchEntry entry, String detail) {
    long wait = ladder.get(0).toMillis();
    defer(entry, Reason.OVERFLOW, detail + "; back in about " + wait + " ms", wait);
  }

  /**
   * An entry dearer than its provider's smallest cost window now allows (a learned or reloaded
   * limit is lower than the configured one the gate checked): it goes round the ladder's longest
   * step, by which time the learned limit may have faded or grown. Its deadline still ends it.
   */
  void cannotFit(DispatchEntry entry, String why) {
    long wait = longestStep();
    defer(entry, Reason.RATE_LIMITED, why + "; back in about " + wait + " ms", wait);
  }

  /**
   * A pause covers it and its provider holds its share of held events already: the ladder's
   * longest step, looked at again when it comes back.
   */
  void pausedBeyondShare(DispatchEntry entry) {
    long wait = longestStep();
    defer(entry, Reason.OVERFLOW, "paused by an operator, and " + bufferSize + " events of "
        + "provider " + entry.event().provider() + " are held already; back in about " + wait
        + " ms", wait);
  }

  private long longestStep() {
    return ladder.get(ladder.size() - 1).toMillis();
  }

  /**
   * Whether {@code entry} comes back from a park (its last deferral was an overflow or a park:
   * the gate strips producers' {@code sluice-} headers, so the header is Sluice's own).
   */
  static boolean returning(DispatchEntry entry) {
    String reason = HeaderValues.last(entry.headers(), HeaderNames.REASON).orElse("");
    return reason.equals(Reason.OVERFLOW.code()) || reason.equals(Reason.PARKED.code());
  }

  /** The events deferred without a call that are not due back yet. */
  ParkedLedger ledger() {
    return ledger;
  }

  private void defer(DispatchEntry entry, Reason reason, String detail, long waitMillis) {
    ledger.parked(entry.event().provider(), reason, clock.millis() + waitMillis);
    writer.defer(entry, reason, detail, waitMillis, entry.attempts());
    listener.deferred(entry.event().provider(), entry.tier(), reason);
  }
}
