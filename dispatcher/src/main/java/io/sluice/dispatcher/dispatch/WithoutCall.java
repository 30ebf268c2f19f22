package io.sluice.dispatcher.dispatch;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.lane.LaneSchedule;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.util.List;

/**
 * Settles the entries that get no call now: dead letters decided before a call (malformed,
 * expired, no endpoint, a disabled one) and deferrals round the delay ladder (a full buffer, no
 * lane free, limits it no longer fits, a pause holding too many). None of them is an attempt:
 * the provider never saw it. Each writes one record and tells the listener.
 */
final class WithoutCall {
  private final SettlementWriter writer;
  private final DispatchListener listener;
  private final LimitLearner learner;
  private final List<Duration> ladder;
  private final int bufferSize;

  WithoutCall(SettlementWriter writer, DispatchListener listener, LimitLearner learner,
      SluiceConfig config) {
    this.writer = writer;
    this.listener = listener;
    this.learner = learner;
    this.ladder = List.copyOf(config.ladder());
    this.bufferSize = config.dispatcher().bufferSize();
  }

  /** Dead-letters the entry now, without a call. */
  void dead(DispatchEntry entry, Reason reason, String detail) {
    writer.dead(entry, reason, detail, entry.attempts());
    listener.dead(entry.event() == null ? null : entry.event().provider(), entry.tier(), reason);
  }

  /**
   * The buffer is full and this entry would be served last: it goes round the ladder and comes
   * back when the buffer has had time to drain ({@code bufferSize} over what the lane achieves,
   * at least the smallest step), at most the provider's {@code maxRetryAfter}: the longest an
   * answer may pause it, and so the longest a pace its answers lowered may be taken to last.
   */
  void overflow(String provider, double drainPerSecond, DispatchEntry entry, String why) {
    long wait = LaneSchedule.overflowWaitMillis(bufferSize, drainPerSecond,
        ladder.get(0).toMillis(), learner.bounds(provider).maxRetryAfterMillis());
    defer(entry, Reason.OVERFLOW, why + "; back in about " + wait + " ms", wait);
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

  private void defer(DispatchEntry entry, Reason reason, String detail, long waitMillis) {
    writer.defer(entry, reason, detail, waitMillis, entry.attempts());
    listener.deferred(entry.event().provider(), entry.tier(), reason);
  }
}
