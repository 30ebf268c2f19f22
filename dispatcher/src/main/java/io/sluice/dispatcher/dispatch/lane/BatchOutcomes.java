package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch's one result, made into each of its events' own, and the orders their settlements give
 * made into the lane's one set. Pure.
 *
 * <p><b>Each event its own result.</b> An event that a 2xx answer lists
 * ({@link ProviderResult.Answered#itemStatuses}) is settled as if the provider had answered it
 * alone with that status (a 200 delivered, a 500 retried, a 400 dead, a 429 retried); every other
 * event of the batch takes the call's result as it is: a 500, a timeout, a refused connection are
 * every event's. Each event is then judged, written and retried on its own, so a retry of a
 * partly failed batch carries only the events that failed.
 *
 * <p><b>One answer, learned once.</b> The answer's rate-limit headers are handed with the first
 * event only: learning from the same answer once per event would count one call as many. The
 * orders the events' settlements give are the lane's once: the longest pause and the longest hold
 * (a 429 to a batch pauses the lane once, not once per event, and slows the shared leak once).
 */
final class BatchOutcomes {
  private BatchOutcomes() {}

  /** Each of {@code eventIds}' result, in their order, from the batch's {@code result}. */
  static List<ProviderResult> split(ProviderResult result, List<String> eventIds) {
    List<ProviderResult> each = new ArrayList<>(eventIds.size());
    for (int i = 0; i < eventIds.size(); i++) {
      if (!(result instanceof ProviderResult.Answered a)) {
        each.add(result);
        continue;
      }
      Integer own = a.itemStatuses().get(eventIds.get(i));
      ResponseHeaders headers = i == 0 ? a.headers() : ResponseHeaders.NONE;
      each.add(new ProviderResult.Answered(own == null ? a.status() : own, a.retryAfter(), headers,
          a.latencyMillis(), a.captured()));
    }
    return each;
  }

  /** The lane's orders from its events' settlements: the longest pause, the longest hold, the first drop. */
  static List<LaneOrder> merge(List<List<LaneOrder>> orders) {
    LaneOrder.Throttle throttle = null;
    LaneOrder.Hold hold = null;
    LaneOrder.DropQueued drop = null;
    for (List<LaneOrder> list : orders) {
      for (LaneOrder order : list) {
        if (order instanceof LaneOrder.Throttle t
            && (throttle == null || t.millis() > throttle.millis())) {
          throttle = t;
        } else if (order instanceof LaneOrder.Hold h && (hold == null || h.millis() > hold.millis())) {
          hold = h;
        } else if (order instanceof LaneOrder.DropQueued d && drop == null) {
          drop = d;
        }
      }
    }
    List<LaneOrder> merged = new ArrayList<>(3);
    if (throttle != null) {
      merged.add(throttle);
    }
    if (hold != null) {
      merged.add(hold);
    }
    if (drop != null) {
      merged.add(drop);
    }
    return merged;
  }
}
