package io.sluice.lab.demo;

import java.util.Map;

/**
 * The demo's state at one instant, read from the metrics and the mock provider.
 *
 * @param atMillis      milliseconds since the load started
 * @param callsByTier   provider calls started so far, by tier
 * @param produced      events the load generator sent so far
 * @param admitted      gate admissions so far
 * @param deferred      deferrals so far (gate and dispatcher)
 * @param delivered     events in sluice.outcomes so far
 * @param dead          events dead-lettered so far (gate, relay and dispatcher)
 * @param buffered      events in the dispatcher's buffer now
 * @param provider429   429s the provider answered so far
 */
public record Sample(
    long atMillis,
    Map<String, Long> callsByTier,
    long produced,
    long admitted,
    long deferred,
    long delivered,
    long dead,
    long buffered,
    long provider429) {

  /** Events produced and not yet delivered or dead: waiting somewhere (ladder, buffer, call). */
  public long backlog() {
    return Math.max(0, produced - delivered - dead);
  }
}
