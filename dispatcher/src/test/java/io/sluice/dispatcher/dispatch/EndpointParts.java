package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.Pace;
import io.sluice.dispatcher.dispatch.lane.ResultHandler;
import io.sluice.dispatcher.fair.PriorityOrder;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.provider.Provider;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/** Test builder of {@link TenantEndpoints.Parts}: the parts a dispatcher would hand its endpoint lanes. */
final class EndpointParts {
  private EndpointParts() {}

  /** Parts whose lanes run at full pace, entries that no longer fit dropped. */
  static TenantEndpoints.Parts of(Map<String, Provider> providers, LeakyBucket leak,
      LimitLearner learner, ScheduledExecutorService timer, ResultHandler settler,
      BiConsumer<DispatchEntry, String> disabledDead, DispatchListener listener, Clock clock,
      LongSupplier nanoTime, long lookaheadMicros, int bufferSize) {
    return of(providers, leak, learner, timer, settler, disabledDead, listener, clock, nanoTime,
        lookaheadMicros, bufferSize, Pace.FULL);
  }

  static TenantEndpoints.Parts of(Map<String, Provider> providers, LeakyBucket leak,
      LimitLearner learner, ScheduledExecutorService timer, ResultHandler settler,
      BiConsumer<DispatchEntry, String> disabledDead, DispatchListener listener, Clock clock,
      LongSupplier nanoTime, long lookaheadMicros, int bufferSize, Pace pace) {
    LaneFactory lanes = new LaneFactory(timer, listener, (entry, why) -> {}, nanoTime, pace,
        lookaheadMicros, bufferSize, PriorityOrder.byDefault(), clock, entry -> {});
    return new TenantEndpoints.Parts(lanes, providers, leak, learner, settler, disabledDead, clock);
  }
}
