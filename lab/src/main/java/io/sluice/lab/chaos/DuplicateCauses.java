package io.sluice.lab.chaos;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where the duplicate deliveries of a chaos run came from. Each 2xx beyond an id's first is put
 * down to one cause, judged from what the topics hold, and to the fault that preceded it.
 *
 * <ul>
 *   <li>{@link #PRODUCED_TWICE}: the load's producer wrote the id to inbound twice (a retried
 *       produce the broker had written), so the gate admitted it twice. Not Sluice's doing.
 *   <li>{@link #RELAY_TWICE}, {@link #GATE_TWICE}: {@code sluice.ready} holds byte-identical copies
 *       of one record (same timestamp, headers and value): it was released twice upstream, by the
 *       relay (the copies carry {@code sluice-return-to}) or by the gate.
 *   <li>{@link #IN_FLIGHT_AT_KILL}: the ready record is there once, and a call of the id before its
 *       second 2xx reached the provider at most one provider timeout before a dispatcher was
 *       SIGKILLed (or within {@link #KILL_SLACK_MILLIS} after: sent before, arrived after), and it
 *       was delivered again after that kill: the call was in flight, its answer died with the
 *       process. That call may have been answered 5xx or timed out: its deferral, written just
 *       before the kill, was in neither a commit nor the delivered log yet, and the record it
 *       settled was called again. No record of any kind can save it.
 *   <li>{@link #DISPATCHER_AGAIN}: the rest. The ready record is there once, and a dispatcher
 *       called it again (a crash or a lost partition replayed it from the last commit).
 * </ul>
 * The upstream causes are counted first, up to their number of extra copies; whatever remains of
 * the id's duplicates is the dispatcher's.
 */
final class DuplicateCauses {
  static final String PRODUCED_TWICE = "written twice by the load's producer";
  static final String RELAY_TWICE = "released twice by the relay (identical ready records)";
  static final String GATE_TWICE = "written twice by the gate (identical ready records)";
  static final String IN_FLIGHT_AT_KILL = "in flight at a dispatcher's SIGKILL (one ready record)";
  static final String DISPATCHER_AGAIN = "called again by a dispatcher (one ready record)";
  static final String NO_FAULT_BEFORE = "before any fault";
  /** A call sent just before a SIGKILL may reach the provider a little after it. */
  static final long KILL_SLACK_MILLIS = 200;

  /**
   * A fault of the run: when, a label ({@code "52.3 s KILL_ROLE dispatch-a"}), and whether it
   * SIGKILLed a dispatcher.
   */
  record Fault(long atMillis, String label, boolean killsDispatcher) {}

  /** Extra identical copies of an id's records in ready, by who released them. */
  record ReadyCopies(int byRelay, int byGate) {}

  /** Duplicates by cause, and by the fault that last preceded each (its label). */
  record Attribution(Map<String, Long> byCause, Map<String, Long> byPrecedingFault) {}

  private DuplicateCauses() {}

  /** @param inFlightMillis the providers' timeout: how long before a kill a call may still be in flight */
  static Attribution of(List<Arrival> arrivals, Map<String, ReadyCopies> copies,
      Set<String> producedTwice, List<Fault> faults, long inFlightMillis) {
    Map<String, List<Long>> successes = new HashMap<>();
    Map<String, List<Long>> calls = new HashMap<>();
    for (Arrival a : arrivals) {
      if (a.succeeded()) {
        successes.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a.atMillis());
      }
      calls.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a.atMillis());
    }
    List<Fault> sorted = new ArrayList<>(faults);
    sorted.sort(Comparator.comparingLong(Fault::atMillis));
    Map<String, Long> byCause = new TreeMap<>();
    Map<String, Long> byFault = new TreeMap<>();
    successes.forEach((id, times) -> {
      int extra = times.size() - 1;
      if (extra <= 0) {
        return;
      }
      times.sort(null);
      ReadyCopies c = copies.getOrDefault(id, new ReadyCopies(0, 0));
      int produced = producedTwice.contains(id) ? 1 : 0;
      int left = extra;
      left -= count(byCause, PRODUCED_TWICE, Math.min(left, produced));
      left -= count(byCause, RELAY_TWICE, Math.min(left, c.byRelay()));
      left -= count(byCause, GATE_TWICE, Math.min(left, c.byGate()));
      long again = times.get(1);
      List<Long> before = calls.get(id).stream().filter(t -> t < again).toList();
      boolean inFlight = sorted.stream().anyMatch(f -> f.killsDispatcher() && f.atMillis() <= again
          && before.stream().anyMatch(t -> t >= f.atMillis() - inFlightMillis
              && t <= f.atMillis() + KILL_SLACK_MILLIS));
      count(byCause, inFlight ? IN_FLIGHT_AT_KILL : DISPATCHER_AGAIN, left);
      for (long at : times.subList(1, times.size())) {
        Fault f = precedingFault(sorted, at);
        byFault.merge(f == null ? NO_FAULT_BEFORE : f.label(), 1L, Long::sum);
      }
    });
    return new Attribution(byCause, byFault);
  }

  private static int count(Map<String, Long> byCause, String cause, int n) {
    if (n > 0) {
      byCause.merge(cause, (long) n, Long::sum);
    }
    return n;
  }

  /** The last fault at or before {@code at}, or null. */
  private static Fault precedingFault(List<Fault> sorted, long at) {
    Fault last = null;
    for (Fault f : sorted) {
      if (f.atMillis() > at) {
        break;
      }
      last = f;
    }
    return last;
  }
}
