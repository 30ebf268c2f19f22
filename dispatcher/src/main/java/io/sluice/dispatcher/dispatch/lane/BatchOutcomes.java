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
 * (a 429 to a batch pauses the lane once, not once per event, and slows the shared leak once). An
 * event the answer lists as 429 or 503 is retried, but pauses nothing: the call was accepted.
 */
final class BatchOutcomes {
  private BatchOutcomes() {}

  /**
   * One event's result.
   *
   * @param listed the answer listed the event with a status of its own: the call itself was
   *               accepted, so a 429 or 503 of that event's is its own (retried), never a reason
   *               to pause the lane or slow the shared leak
   */
  record Each(ProviderResult result, boolean listed) {}

  /** Each of {@code eventIds}' result, in their order, from the batch's {@code result}. */
  static List<Each> split(ProviderResult result, List<String> eventIds) {
    List<Each> each = new ArrayList<>(eventIds.size());
    for (int i = 0; i < eventIds.size(); i++) {
      if (!(result instanceof ProviderResult.Answered a)) {
        each.add(new Each(result, false));
        continue;
      }
      Integer own = a.itemStatuses().get(eventIds.get(i));
      ResponseHeaders headers = i == 0 ? a.headers() : ResponseHeaders.NONE;
      each.add(new Each(new ProviderResult.Answered(own == null ? a.status() : own,
          own == null ? a.retryAfter() : null, headers, a.latencyMillis(), a.captured()),
          own != null));
    }
    return each;
  }

  /**
   * The lane's orders from its events' settlements: the longest pause (of the events the answer
   * did not list: {@link Each#listed}), the longest hold, the first drop.
   *
   * @param listed for each of {@code orders}, whether its event's status was its own
   */
  static List<LaneOrder> merge(List<List<LaneOrder>> orders, List<Boolean> listed) {
    LaneOrder.Throttle throttle = null;
    LaneOrder.Hold hold = null;
    LaneOrder.DropQueued drop = null;
    for (int i = 0; i < orders.size(); i++) {
      for (LaneOrder order : orders.get(i)) {
        if (order instanceof LaneOrder.Throttle t) {
          if (!listed.get(i) && (throttle == null || t.millis() > throttle.millis())) {
            throttle = t;
          }
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
