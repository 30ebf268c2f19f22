package io.sluice.app.simulate;

import io.sluice.schemas.event.Reason;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one tenant (or one tier) came to in a simulation: the lateness of its calls, the events
 * that missed their deadline, and its dead letters by reason. Compact on purpose: a simulation
 * keeps one per tenant seen.
 */
public final class Tally {
  private final Lateness lateness = new Lateness();
  private long deadlineMisses;
  private EnumMap<Reason, Long> dead;

  void called(long latenessMillis) {
    lateness.record(latenessMillis);
  }

  void dead(Reason reason, boolean missedDeadline) {
    if (dead == null) {
      dead = new EnumMap<>(Reason.class);
    }
    dead.merge(reason, 1L, Long::sum);
    if (missedDeadline) {
      deadlineMisses++;
    }
  }

  /** Adds another's calls, misses and dead letters to this one's (the same tenant, simulated apart). */
  void add(Tally other) {
    lateness.add(other.lateness);
    deadlineMisses += other.deadlineMisses;
    other.dead().forEach((reason, n) -> {
      if (dead == null) {
        dead = new EnumMap<>(Reason.class);
      }
      dead.merge(reason, n, Long::sum);
    });
  }

  public Lateness lateness() {
    return lateness;
  }

  public long calls() {
    return lateness.count();
  }

  public long deadlineMisses() {
    return deadlineMisses;
  }

  /** Dead letters by reason (empty when none). */
  public Map<Reason, Long> dead() {
    return dead == null ? Map.of() : dead;
  }

  public long deadTotal() {
    return dead == null ? 0 : dead.values().stream().mapToLong(Long::longValue).sum();
  }
}
