package io.sluice.dispatcher.dispatch;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.intake.ReadyRecordCheck;
import io.sluice.dispatcher.dispatch.intake.RecordIntake;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.redis.order.OrderTurn;
import io.sluice.schemas.event.Reason;
import java.time.Clock;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes each record read: what becomes of it is {@link RecordIntake}'s to say (skipped as settled
 * before or as a second copy of a settlement, dead-lettered as malformed or expired, held for its
 * previous owner's outcome as delivered before ({@link InheritedCalls}), or queued); an ordered
 * event that is not its key's head waits round the ladder ({@link KeyTurns}); a queued one is
 * counted against the {@link
 * ReadBudget}, held if a pause covers it ({@link PauseKeeper}), and routed to its lane ({@link
 * Lanes#route}). The consumer thread owns it; a reload replaces the record check ({@link
 * #reload}).
 */
final class Arrivals {
  private static final Logger LOG = LoggerFactory.getLogger(Arrivals.class);

  private final OwnedPartitions owned;
  private final ReadBudget held;
  private final Lanes lanes;
  private final PauseKeeper pauses;
  private final WithoutCall withoutCall;
  private final SettlementWriter writer;
  private final Books books;
  /** Where a record whose call was delivered before its assignment waits for its outcome. */
  private final InheritedCalls inherited;
  private final Backpressure backpressure;
  private final Clock clock;
  /** Ordering keys: only a key's head goes on to its lane. */
  private final KeyTurns turns;
  /** Replaced whole by a configuration reload (tenants' tiers, providers' maxCost). */
  private volatile RecordIntake intake;
  /** The configuration now (a reload replaces it): which endpoint each tenant has. */
  private volatile SluiceConfig current;
  /** Records skipped because the previous owner's commit said they were settled. */
  private volatile long skipped;
  /** Records whose call a previous owner (or this instance) had delivered: outcome written, not called. */
  private volatile long skippedAsDelivered;

  Arrivals(SluiceConfig config, OwnedPartitions owned, ReadBudget held, Lanes lanes,
      PauseKeeper pauses, WithoutCall withoutCall, SettlementWriter writer, Books books,
      InheritedCalls inherited, Backpressure backpressure, Clock clock, KeyTurns turns) {
    this.inherited = inherited;
    this.turns = turns;
    this.owned = owned;
    this.held = held;
    this.lanes = lanes;
    this.pauses = pauses;
    this.withoutCall = withoutCall;
    this.writer = writer;
    this.books = books;
    this.backpressure = backpressure;
    this.clock = clock;
    reload(config);
  }

  /** Records read from now on are checked against {@code next}, and routed under it. */
  void reload(SluiceConfig next) {
    current = next;
    turns.reload(next);
    intake = new RecordIntake(new ReadyRecordCheck(next));
  }

  long skippedAsSettled() {
    return skipped;
  }

  long skippedAsDelivered() {
    return skippedAsDelivered;
  }

  /** Takes one record read ({@link RecordIntake}): skips, dead-letters, writes, or queues it. */
  void accept(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    OwnedPartitions.Assignment assignment = owned.get(tp);
    if (assignment == null) {
      return; // not ours (a record from a poll that raced a revocation)
    }
    RecordIntake.Action action = intake.admit(record, assignment, clock.instant());
    if (action instanceof RecordIntake.SettledBefore) {
      skipped++;
      books.skipped();
      return;
    }
    if (action instanceof RecordIntake.SecondCopy copy) {
      // A retry written twice (its produce timed out after the broker wrote it): called once.
      books.skipped();
      LOG.debug("dispatcher: {}@{} is a second copy of the settlement of {}; skipped", tp,
          record.offset(), copy.settles());
      return;
    }
    if (action instanceof RecordIntake.ReadAgain again) {
      LOG.warn("dispatcher: {}@{} read again by the same assignment (its position went back); "
          + "skipped, it was taken at its first read", tp, again.offset());
      return;
    }
    if (action instanceof RecordIntake.Malformed m) {
      held.hold(m.entry());
      withoutCall.dead(m.entry(), m.reason(), m.detail()); // the dead letter names its source
      return;
    }
    if (action instanceof RecordIntake.DeliveredBefore d) {
      held.hold(d.entry());
      // Its call was delivered: its key's turn moves now (once, whoever moves it). Its outcome is
      // not written at once: the previous owner's may still be acknowledged (issue 34).
      turns.delivered(d.entry());
      inherited.hold(d.entry(), d.delivered());
      skippedAsDelivered++;
      return;
    }
    if (action instanceof RecordIntake.Expired x) {
      held.hold(x.entry());
      withoutCall.dead(x.entry(), Reason.EXPIRED, x.detail());
      return;
    }
    DispatchEntry entry = ((RecordIntake.Queue) action).entry();
    OrderTurn turn = turns.turn(entry);
    if (turn instanceof OrderTurn.Wait wait) {
      held.hold(entry);
      withoutCall.ordering(entry, wait.ahead(), wait.waitMillis());
      return;
    }
    if (turn instanceof OrderTurn.Blocked) {
      held.hold(entry);
      withoutCall.dead(entry, Reason.BLOCKED_BY_HEAD, "the event of its ordering key '"
          + entry.event().orderingKey() + "' before it was dead-lettered, and provider "
          + entry.event().provider() + " says orderingOnDeadHead: deadLetter");
      return;
    }
    // Judged before this entry is counted: does its provider's share have room for it?
    boolean fits = held.fits(entry);
    held.hold(entry);
    String provider = entry.event().provider();
    if (!fits) {
      // Its turn in its lane if the lane is live (its provider's, or its endpoint's); else the
      // smallest step.
      long wait = lanes.get(LaneId.provider(provider))
          .or(() -> lanes.get(LaneId.endpoint(provider, entry.event().tenant())))
          .map(lane -> lane.parkNanos(WithoutCall.returning(entry))).orElse(0L);
      withoutCall.overflow(entry, wait, "provider " + provider
          + " holds its share of dispatcher.bufferBytes");
      backpressure.overflowed(tp, provider);
      return;
    }
    if (pauses.holds(entry)) {
      pauses.hold(entry);
      return;
    }
    Optional<String> overflowed = queue(entry);
    if (overflowed.isPresent()) {
      backpressure.overflowed(tp, overflowed.get());
    } else {
      backpressure.queued(tp);
    }
  }

  /**
   * Queues an entry in its lane, or settles it without a call when it gets none ({@link Lanes#route}).
   * When the lane's buffer is full, the entry its fair queue would serve last goes round the
   * ladder; the lane's name is returned then.
   */
  Optional<String> queue(DispatchEntry entry) {
    LaneRoute route = lanes.route(entry, current);
    if (route instanceof LaneRoute.Dead dead) {
      withoutCall.dead(entry, dead.reason(), dead.detail());
      return Optional.empty();
    }
    if (route instanceof LaneRoute.Full full) {
      withoutCall.full(entry, full.detail());
      return Optional.empty();
    }
    ProviderLane lane = ((LaneRoute.Queue) route).lane();
    Optional<DispatchEntry> evicted = lane.offer(entry);
    evicted.ifPresent(e -> withoutCall.overflow(e, lane.parkNanos(WithoutCall.returning(e)),
        "lane " + lane.name() + " buffer full (" + lane.capacity() + " events); parked for its turn"));
    return evicted.map(e -> lane.name());
  }
}
