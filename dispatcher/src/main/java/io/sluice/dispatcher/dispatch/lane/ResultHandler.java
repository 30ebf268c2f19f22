package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.provider.ProviderResult;

/** What becomes of a call's result: it is judged into a {@link Settlement}. */
public interface ResultHandler {
  /**
   * @param claimedAtMicros when the leak granted this call's slot, on the leak's clock: a 429 to
   *                        a call whose slot was granted before the last rate cut does not cut
   *                        again (it was spaced at the old rate)
   */
  Settlement settle(LaneId lane, DispatchEntry entry, ProviderResult result, long claimedAtMicros);
}
