package io.sluice.dispatcher.feedback;

import io.sluice.schemas.event.Reason;

/** What the dispatcher does with an event after one provider call. */
public sealed interface Verdict {

  /** The provider took it: the event goes to {@code sluice.outcomes}. */
  record Delivered(int status) implements Verdict {}

  /**
   * Try again after {@code waitMillis}, through the delay ladder back to {@code sluice.ready}.
   *
   * @param attempts  provider failures so far, this one included (the new {@code sluice-attempt})
   * @param throttled the provider said "too many" (429/503): its leak must slow down and pause
   *                  for {@code waitMillis}
   */
  record Retry(Reason reason, String detail, long waitMillis, int attempts, boolean throttled)
      implements Verdict {}

  /** Give up: the event goes to {@code sluice.dlq} with this reason. */
  record Dead(Reason reason, String detail, int attempts) implements Verdict {}
}
