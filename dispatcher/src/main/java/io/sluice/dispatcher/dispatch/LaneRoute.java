package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.schemas.event.Reason;

/** Where an event read goes ({@link Lanes#route}): a lane, a dead letter, or back later. */
sealed interface LaneRoute {
  /** Queue it in this lane. */
  record Queue(ProviderLane lane) implements LaneRoute {}

  /** Dead-letter it, without a call. */
  record Dead(Reason reason, String detail) implements LaneRoute {}

  /**
   * Not now (every endpoint lane busy, or the registry did not answer): defer it round the
   * ladder, no attempt spent.
   */
  record Full(String detail) implements LaneRoute {}
}
