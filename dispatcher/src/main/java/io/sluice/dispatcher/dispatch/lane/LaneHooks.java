package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatchSpans;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * What a lane reports to and runs on.
 *
 * @param timer     runs the lane's due slots and pauses (one thread, shared by the lanes)
 * @param results   what becomes of each call's result
 * @param listener  metrics and events
 * @param cannotFit takes a queued entry dearer than the provider's smallest cost window now
 *                  allows (a learned or reloaded limit lowered it), with why: it would block
 *                  the lane's head forever, so it leaves the queue (the caller defers it)
 * @param nanoTime  the lane's monotonic clock ({@code System::nanoTime}): slots are timed, and
 *                  pauses and waits measured, on it
 * @param pace      the dispatcher's pace: the lane claims at its rate times the factor, and
 *                  reports how late its slots fire ({@link PaceGovernor}); {@link Pace#FULL}
 *                  for a lane always at full pace
 * @param spans     each call's wait and attempt spans ({@link DispatchSpans#OFF}: none)
 */
public record LaneHooks(ScheduledExecutorService timer, ResultHandler results,
    DispatchListener listener, BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime,
    Pace pace, DispatchSpans spans) {

  /** Hooks that trace nothing. */
  public LaneHooks(ScheduledExecutorService timer, ResultHandler results,
      DispatchListener listener, BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime,
      Pace pace) {
    this(timer, results, listener, cannotFit, nanoTime, pace, DispatchSpans.OFF);
  }
}
