package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.lane.LaneOrder;
import io.sluice.dispatcher.dispatch.lane.ResultHandler;
import io.sluice.dispatcher.dispatch.lane.Settlement;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.PendingDeliveries;
import io.sluice.dispatcher.dispatch.settlement.CallJudge;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.ProviderResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.DoubleSupplier;

/**
 * What becomes of a call's result, as one pipeline that only calls down: judge it
 * ({@link CallJudge}: the event's verdict and the lane's pause), write the record that settles
 * the event ({@link SettlementWriter}; a delivery also goes to the {@link PendingDeliveries} for
 * the delivered log), tell the listener, and learn the provider's limits from the answer
 * ({@link LimitLearner}). What the lane must do (pause, hold) is returned to it as
 * {@link LaneOrder}s, which it carries out itself.
 *
 * <p>Runs on the thread each call completes on; every part it writes to is thread-safe.
 */
final class Settler implements ResultHandler {
  private final CallJudge judge;
  private final LimitLearner learner;
  private final SettlementWriter writer;
  private final PendingDeliveries deliveries;
  private final DispatchListener listener;
  private final Clock clock;
  /** Uniform in [0, 1): the jitter of retries' backoff. */
  private final DoubleSupplier random;
  /** Ordering keys' turns: a delivery or a dead letter moves its key's turn on. */
  private final KeyTurns turns;
  /** Each event's outcome span. */
  private final DispatchSpans spans;

  Settler(CallJudge judge, LimitLearner learner, SettlementWriter writer,
      PendingDeliveries deliveries, DispatchListener listener, Clock clock, DoubleSupplier random,
      KeyTurns turns) {
    this(judge, learner, writer, deliveries, listener, clock, random, turns, DispatchSpans.OFF);
  }

  Settler(CallJudge judge, LimitLearner learner, SettlementWriter writer,
      PendingDeliveries deliveries, DispatchListener listener, Clock clock, DoubleSupplier random,
      KeyTurns turns, DispatchSpans spans) {
    this.spans = spans;
    this.turns = turns;
    this.judge = judge;
    this.learner = learner;
    this.writer = writer;
    this.deliveries = deliveries;
    this.listener = listener;
    this.clock = clock;
    this.random = random;
  }

  @Override
  public Settlement settle(LaneId lane, DispatchEntry entry, ProviderResult result,
      long claimedAtMicros) {
    String name = lane.name();
    long maxRetryAfter = learner.bounds(name).maxRetryAfterMillis();
    CallJudge.Judgement judged = judge.judge(result, entry.attempts(), entry.event().deadline(),
        clock.instant(), random, maxRetryAfter);
    judged.askedMillis().ifPresent(asked -> learner.noteBound(name,
        LimitLearner.Bound.RETRY_AFTER, "an answer (status "
            + ((ProviderResult.Answered) result).status() + "; Retry-After: "
            + LimitLearner.cut(((ProviderResult.Answered) result).retryAfter()) + ") asked for "
            + asked + " ms; paused " + maxRetryAfter + " ms (maxRetryAfter)"));
    List<LaneOrder> first = new ArrayList<>(2);
    judged.pauseMillis().ifPresent(millis -> first.add(new LaneOrder.Throttle(millis, claimedAtMicros)));
    if (result instanceof ProviderResult.CredentialUnavailable) {
      // The lane's next calls would find no token either: they wait, spending no slot.
      first.add(new LaneOrder.Hold(FeedbackPolicy.CREDENTIAL_WAIT_MILLIS));
    }
    return Settlement.of(first, () -> {
      write(entry, result, judged.verdict());
      spans.outcome(entry, judged.verdict());
      // Every answer may announce the provider's limits; one saying nothing remains holds the
      // provider (for every instance, through the leak) without cutting its rate. After the
      // verdict: a 429's pause must not wait for the parsing.
      OptionalLong hold = learner.answered(name, result, entry.event().cost());
      return hold.isPresent() ? List.of(new LaneOrder.Throttle(hold.getAsLong(), 0)) : List.of();
    });
  }

  private void write(DispatchEntry entry, ProviderResult result, Verdict verdict) {
    String provider = entry.event().provider();
    if (verdict instanceof Verdict.Delivered d) {
      turns.delivered(entry);
      deliveries.add(entry.partition(),
          new DeliveredLog.Delivered(entry.offset(), d.status(), entry.attempts() + 1),
          clock.millis());
      if (result instanceof ProviderResult.Answered a) {
        writer.delivered(entry, d.status(), entry.attempts() + 1, a.latencyMillis(),
            a.captured().headers(), a.captured().body());
      } else {
        writer.delivered(entry, d.status(), entry.attempts() + 1);
      }
      listener.delivered(provider, entry.tier());
    } else if (verdict instanceof Verdict.Retry r) {
      writer.defer(entry, r.reason(), r.detail(), r.waitMillis(), r.attempts(), status(result));
      listener.deferred(provider, entry.tier(), r.reason());
    } else {
      Verdict.Dead dead = (Verdict.Dead) verdict;
      turns.dead(entry, dead.reason());
      writer.dead(entry, dead.reason(), dead.detail(), dead.attempts(), status(result));
      listener.dead(provider, entry.tier(), dead.reason());
    }
  }

  /** The provider's answer's status, for the event's log line; null if it did not answer. */
  private static Integer status(ProviderResult result) {
    return result instanceof ProviderResult.Answered a ? a.status() : null;
  }
}
