package io.sluice.app.dlq;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The replay ledger as read: which dead letters were replayed (by their coordinates) and, for
 * each, which death of which event that replay answered. Pure; {@link ReplayLedger} fills it.
 *
 * <p>Why an event and not only a position: one attempt's dead letter can be written twice (a
 * settlement resent after a produce timeout, a sweeper copying a hanging transaction's records,
 * a rebalance before the first write was acknowledged), and each copy has a position of its own.
 * Replaying both would send the event twice. So a replay is recorded against its event's
 * <em>death</em>: the event id together with the replay the dead event itself came from (its
 * {@link ReplayMark}, none for an event that never was replayed). Every dead letter of one death
 * is answered by one replay; a replayed event that dies again is a new death (its dead letter
 * carries the mark of the replay) and can be replayed once more.
 *
 * <p>A ledger record written before deaths were recorded names none: it is read as the death of
 * the original event (no mark), the common case.
 */
final class ReplayedEvents {
  private final Map<String, Death> byCoordinates = new HashMap<>();

  /** One death of an event: its id and the replay it came from (empty: none). */
  record Death(String eventId, String replayOf) {
    Death {
      replayOf = replayOf == null ? "" : replayOf;
    }

    /** The death {@code e} records; null when its event id is unknown. */
    static Death of(DeadLetterEntry e) {
      return e.eventId() == null ? null : new Death(e.eventId(), e.replayOf());
    }
  }

  /** Nothing replayed yet. */
  static ReplayedEvents none() {
    return new ReplayedEvents();
  }

  /** A ledger holding only positions (no event known for any): for tests of position rules. */
  static ReplayedEvents ofCoordinates(Set<String> coordinates) {
    ReplayedEvents r = new ReplayedEvents();
    coordinates.forEach(at -> r.replayed(at, null));
    return r;
  }

  /** A ledger record: the dead letter at {@code at} was replayed (or settled), answering {@code death}. */
  void replayed(String at, Death death) {
    byCoordinates.put(at, death);
  }

  /** A tombstone: the operator means the dead letter at {@code at} to be replayable again. */
  void forgotten(String at) {
    byCoordinates.remove(at);
  }

  boolean holds(String at) {
    return byCoordinates.containsKey(at);
  }

  /** The deaths the ledger answered, as of the end of the read. */
  Set<Death> deaths() {
    Set<Death> deaths = new HashSet<>();
    byCoordinates.values().forEach(d -> {
      if (d != null) {
        deaths.add(d);
      }
    });
    return Collections.unmodifiableSet(deaths);
  }
}
