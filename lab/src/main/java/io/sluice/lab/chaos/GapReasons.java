package io.sluice.lab.chaos;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the events waited for while the providers got no call for long: for every gap between two
 * consecutive calls (all providers together) longer than {@link #LONGEST_QUIET_MILLIS}, the events
 * that were waiting (in the pipeline before the gap ended, first delivered at or after its end) and,
 * for each, where it was just before the calls resumed. Pure: the run reads the topics and passes
 * each id's marks in.
 *
 * <ul>
 *   <li>{@link #AT_GATE}: no ready record yet, or its ready record is stamped after the gap's end
 *       (a paid record's due time): the tenant's quota held it, a debt from an outage, or the gate
 *       was away;
 *   <li>{@link #DELAY_STEP}: its latest record was a deferral whose not-before falls after the gap's
 *       end: the ladder's step;
 *   <li>{@link #RELAY}: a deferral whose not-before had passed, not yet returned to ready;
 *   <li>in ready, due, no call: put down to the faults overlapping the gap (a dispatcher killed, the
 *       broker away, Redis away: the circuit and the leak, the 429 storm's Retry-After holds), or
 *       to {@link #NOTHING} when none did.
 * </ul>
 */
final class GapReasons {
  /** Gaps longer than this are explained. */
  static final long LONGEST_QUIET_MILLIS = 10_000;
  static final String AT_GATE = "not admitted yet (at the gate: its tenant's quota or debt, or the "
      + "gate held up by the faults listed)";
  static final String DELAY_STEP = "a delay step (deferred, not before the gap's end)";
  /**
   * An overflow (its lane's buffer full) sent round the ladder past the gap's end: the provider
   * sat idle while it waited for a turn that had come (issue 39: 61 s and 103 s after a run's
   * faults, on a drain estimated during a timeout phase). No reason a person can see.
   */
  static final String DELAY_OVERFLOW = "a delay step as an overflow, back after the gap's end "
      + "(its lane had room: no visible reason)";
  static final String RELAY = "in a delay topic past its not-before (relay)";
  static final String NOTHING = "nothing: in ready, due, no fault (unexplained)";
  static final String IN_READY = "in ready, due: ";

  /** Where an event was: a ready record, a deferral, or the inbound record. */
  enum Place { INBOUND, READY, DELAY }

  /**
   * One record of an id: where, its timestamp (ready: the admission or due time; delay: when it was
   * placed; inbound: when produced), and for a deferral its not-before (else 0) and its
   * {@code sluice-reason} (else "").
   */
  record Mark(Place place, long atMillis, long notBeforeMillis, String reason) {
    Mark(Place place, long atMillis, long notBeforeMillis) {
      this(place, atMillis, notBeforeMillis, "");
    }
  }

  /** A fault's window: it started at {@code fromMillis} and was over at {@code toMillis}. */
  record Window(long fromMillis, long toMillis, String label) {}

  /**
   * One long gap: from {@code fromSecond} (since the load started) for {@code seconds}, the events
   * waiting, what they waited for (reason → events), and the faults overlapping it.
   */
  record GapFigure(double fromSecond, double seconds, long waiting, Map<String, Long> waitingFor,
      List<String> faultsDuring) {}

  private GapReasons() {}

  /**
   * The windows in which a provider may rightly sit idle, each a reason a person can see: the
   * faults' own windows, each hostile answer's hold (it holds its provider for {@code holdMillis},
   * the {@code maxRetryAfter} bound, with its end shown), the tenant's pause while it held (from
   * {@code pausedFrom} until {@code pausedTo}, or only its start when never resumed; none when
   * never set: -1), and the 429 storm until a second (its Retry-After) past its last answer.
   */
  static List<Window> visibleReasons(List<Window> faults, Map<String, List<Long>> hostileAnswers,
      long holdMillis, String pausedTenant, long pausedFrom, long pausedTo, List<Arrival> arrivals) {
    List<Window> windows = new ArrayList<>(faults);
    hostileAnswers.forEach((p, times) -> times.forEach(t -> windows.add(
        new Window(t, t + holdMillis, "a hostile answer's hold (maxRetryAfter) at " + p))));
    if (pausedFrom >= 0) {
      windows.add(new Window(pausedFrom, pausedTo < 0 ? pausedFrom : pausedTo,
          "tenant " + pausedTenant + " paused"));
    }
    LongSummaryStatistics storm = arrivals.stream().filter(Arrival::storm)
        .mapToLong(Arrival::atMillis).summaryStatistics();
    if (storm.getCount() > 0) {
      windows.add(new Window(storm.getMin(), storm.getMax() + 1_000, "the 429 storm (Retry-After holds)"));
    }
    return windows;
  }

  /**
   * @param arrivals    every call the providers got
   * @param marks       each id's records, any order
   * @param windows     the faults' windows (kills until the role was back, outages)
   * @param loadStart   when the load started (the report's seconds count from it)
   */
  static List<GapFigure> of(List<Arrival> arrivals, Map<String, List<Mark>> marks,
      List<Window> windows, long loadStart) {
    List<Arrival> sorted = new ArrayList<>(arrivals);
    sorted.sort(Comparator.comparingLong(Arrival::atMillis));
    Map<String, Long> firstSuccess = new HashMap<>();
    for (Arrival a : sorted) {
      if (a.succeeded()) {
        firstSuccess.putIfAbsent(a.key(), a.atMillis());
      }
    }
    List<GapFigure> gaps = new ArrayList<>();
    for (int i = 1; i < sorted.size(); i++) {
      long from = sorted.get(i - 1).atMillis();
      long to = sorted.get(i).atMillis();
      if (to - from > LONGEST_QUIET_MILLIS) {
        gaps.add(explain(from, to, firstSuccess, marks, windows, loadStart));
      }
    }
    return gaps;
  }

  private static GapFigure explain(long from, long to, Map<String, Long> firstSuccess,
      Map<String, List<Mark>> marks, List<Window> windows, long loadStart) {
    List<String> faults = new ArrayList<>();
    for (Window w : windows) {
      if (w.fromMillis() < to && w.toMillis() > from) {
        faults.add(w.label());
      }
    }
    String inReady = faults.isEmpty() ? NOTHING : IN_READY + String.join(", ", faults);
    Map<String, Long> reasons = new TreeMap<>();
    long waiting = 0;
    for (Map.Entry<String, List<Mark>> e : marks.entrySet()) {
      Long delivered = firstSuccess.get(e.getKey());
      Mark produced = e.getValue().stream().filter(m -> m.place() == Place.INBOUND)
          .min(Comparator.comparingLong(Mark::atMillis)).orElse(null);
      if (delivered == null || delivered < to || produced == null || produced.atMillis() >= to) {
        continue; // not waiting through this gap
      }
      waiting++;
      reasons.merge(reason(e.getValue(), to, inReady), 1L, Long::sum);
    }
    return new GapFigure((from - loadStart) / 1000.0, (to - from) / 1000.0, waiting, reasons,
        faults);
  }

  /**
   * The long gaps after the faults (from {@code faultsOverMillis}, since the load started) in
   * which events waited with no reason a person can see: in ready, due, with no fault, or as an
   * overflow whose turn had come. The chaos run fails on any (issue 39: a provider is never idle
   * while events wait for it, unless for a visible reason: a quota, a pause, a hold, a disabled
   * endpoint, a retry's back-off).
   */
  static List<GapFigure> idleWithoutReason(List<GapFigure> gaps, double faultsOverSecond) {
    List<GapFigure> idle = new ArrayList<>();
    for (GapFigure g : gaps) {
      if (g.fromSecond() >= faultsOverSecond
          && (g.waitingFor().containsKey(NOTHING) || g.waitingFor().containsKey(DELAY_OVERFLOW))) {
        idle.add(g);
      }
    }
    return idle;
  }

  /** Where an event was just before {@code to}, the calls resuming. */
  static String reason(List<Mark> marks, long to, String inReady) {
    Mark latest = null;
    for (Mark m : marks) {
      if (m.place() != Place.INBOUND && m.atMillis() < to
          && (latest == null || m.atMillis() >= latest.atMillis())) {
        latest = m;
      }
    }
    if (latest == null) {
      return AT_GATE;
    }
    if (latest.place() == Place.DELAY) {
      if (latest.notBeforeMillis() < to) {
        return RELAY;
      }
      return "overflow".equals(latest.reason()) ? DELAY_OVERFLOW : DELAY_STEP;
    }
    return inReady;
  }
}
