package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.lane.LaneHooks;
import io.sluice.dispatcher.dispatch.lane.Pace;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.lane.ResultHandler;
import io.sluice.dispatcher.fair.PriorityOrder;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Builds every lane, a provider's own and a tenant's endpoint's alike, from its provider's
 * configuration and the parts all lanes share: one timer, one listener, one clock, the
 * dispatcher's pace, the look-ahead and buffer. An endpoint lane reports under its provider's
 * name ({@link EndpointListener}: metrics grow with providers, not with endpoints).
 *
 * @param timer           runs every lane's due slots and pauses (one thread)
 * @param listener        metrics and events
 * @param cannotFit       takes an entry that no longer fits its provider's limits, and why
 * @param nanoTime        the lanes' monotonic clock
 * @param pace            the dispatcher's pace ({@link io.sluice.dispatcher.dispatch.lane.PaceGovernor})
 * @param lookaheadMicros how far ahead lanes claim slots ({@code dispatcher.lookahead})
 * @param bufferSize      entries a provider's lane queues at most ({@code dispatcher.bufferSize});
 *                        an endpoint's lane at most {@link ReadBudget#PER_ENDPOINT_LANE}, the
 *                        records each live endpoint lane adds to its partition's budget, so that
 *                        one endpoint's backlog waits parked in Kafka, not in its partition's share
 * @param clock           the wall clock its entries' deadlines are judged on
 * @param expired         takes an entry whose deadline passed while it was queued
 * @param spans           each call's wait and attempt spans
 * @param callsGo         whether any call may start now, dispatcher-wide: not while its
 *                        settlements go unacknowledged ({@link CallsWait})
 */
record LaneFactory(ScheduledExecutorService timer, DispatchListener listener,
    BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime, Pace pace,
    long lookaheadMicros, int bufferSize, PriorityOrder priorityOrder, Clock clock,
    Consumer<DispatchEntry> expired, DispatchSpans spans, BooleanSupplier callsGo) {

  /** A factory whose lanes always may call (tests). */
  LaneFactory(ScheduledExecutorService timer, DispatchListener listener,
      BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime, Pace pace,
      long lookaheadMicros, int bufferSize, PriorityOrder priorityOrder, Clock clock,
      Consumer<DispatchEntry> expired, DispatchSpans spans) {
    this(timer, listener, cannotFit, nanoTime, pace, lookaheadMicros, bufferSize, priorityOrder,
        clock, expired, spans, () -> true);
  }

  /** A factory whose lanes trace nothing. */
  LaneFactory(ScheduledExecutorService timer, DispatchListener listener,
      BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime, Pace pace,
      long lookaheadMicros, int bufferSize, PriorityOrder priorityOrder, Clock clock,
      Consumer<DispatchEntry> expired) {
    this(timer, listener, cannotFit, nanoTime, pace, lookaheadMicros, bufferSize, priorityOrder,
        clock, expired, DispatchSpans.OFF);
  }

  /**
   * A new lane {@code id} calling {@code calls} within {@code limits} on {@code leak}; its
   * results go to {@code results}.
   */
  ProviderLane open(LaneId id, ProviderConfig provider, Map<String, Double> weights,
      LimitSource limits, Provider calls, LeakyBucket leak, ResultHandler results) {
    // A lease outlives its slot by the call's timeout and a second: a call still running then
    // has been given up by the HTTP client.
    long leaseMicros = TimeUnit.NANOSECONDS.toMicros(provider.timeout().toNanos()) + 1_000_000;
    DispatchListener reports = id.isEndpoint() ? new EndpointListener(listener) : listener;
    int capacity = id.isEndpoint() ? Math.min(bufferSize, ReadBudget.PER_ENDPOINT_LANE)
        : bufferSize;
    ProviderLane lane = new ProviderLane(
        new ProviderLane.Settings(id, leaseMicros, provider.maxInFlight(), lookaheadMicros,
            weights, capacity, priorityOrder),
        new ProviderLane.Calls(limits, calls, leak),
        new LaneHooks(timer, results, reports, cannotFit, nanoTime, pace, spans));
    lane.expireWith(e -> LaneSweep.pastDeadline(e, clock.instant()), expired);
    lane.batchWith(provider.batch());
    lane.waitWhileUnwritten(callsGo);
    return lane;
  }
}
