package io.sluice.lab.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a chaos run's paused tenant and dead endpoint got (issue 39): the paused tenant's calls
 * while its pause was in force, and the dead endpoint's answers and deliveries. Pure: the
 * arrivals, each event's destination and the windows in, the figures and failures out.
 */
final class IsolationFigures {
  /**
   * A pause is in force at every dispatcher within this of the command's return: each reads the
   * pauses every second, and a call already under way when it read them still lands.
   */
  static final long PAUSE_GRACE_MILLIS = 2_000;

  /** [from, to) in epoch milliseconds; {@code from < 0} when it never began. */
  record Window(long fromMillis, long toMillis) {
    boolean covers(long t) {
      return fromMillis >= 0 && t >= fromMillis && t < toMillis;
    }
  }

  private IsolationFigures() {}

  /**
   * @param destinations each event's {@code tenant/provider}, by id
   * @param paused       while the pause was in force (from the pause command's return to the
   *                     resume command's start); {@code from < 0} if the pause was never set
   */
  static Map<String, Object> of(List<ArrivalFigures.Arrival> arrivals,
      Map<String, String> destinations, String pausedTenant, Window paused, String deadTenant,
      String deadProvider, Window dead, long loadStart) {
    String deadDestination = deadTenant + "/" + deadProvider;
    long callsWhilePaused = 0;
    long deadAnswers = 0;
    long deliveredAfterMend = 0;
    long firstAfterMend = -1;
    for (ArrivalFigures.Arrival a : arrivals) {
      String destination = destinations.getOrDefault(a.key(), "");
      if (destination.startsWith(pausedTenant + "/") && paused.fromMillis() >= 0
          && new Window(paused.fromMillis() + PAUSE_GRACE_MILLIS, paused.toMillis())
              .covers(a.atMillis())) {
        callsWhilePaused++;
      }
      if (destination.equals(deadDestination)) {
        if (a.status() == 503 && dead.covers(a.atMillis())) {
          deadAnswers++;
        } else if (a.succeeded() && a.atMillis() >= dead.toMillis()) {
          deliveredAfterMend++;
          if (firstAfterMend < 0 || a.atMillis() < firstAfterMend) {
            firstAfterMend = a.atMillis();
          }
        }
      }
    }
    long deadEvents = destinations.values().stream().filter(deadDestination::equals).count();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("pausedTenant", pausedTenant);
    f.put("pausedFromSecond", paused.fromMillis() < 0 ? null : (paused.fromMillis() - loadStart) / 1000.0);
    f.put("pausedToSecond", paused.fromMillis() < 0 ? null : (paused.toMillis() - loadStart) / 1000.0);
    f.put("callsWhilePaused", callsWhilePaused);
    f.put("deadEndpoint", deadDestination);
    f.put("deadFromSecond", (dead.fromMillis() - loadStart) / 1000.0);
    f.put("deadToSecond", (dead.toMillis() - loadStart) / 1000.0);
    f.put("deadAnswers", deadAnswers);
    f.put("deadEndpointEvents", deadEvents);
    f.put("deadEndpointDeliveredAfterMend", deliveredAfterMend);
    f.put("firstDeliveryAfterMendSeconds",
        firstAfterMend < 0 ? null : (firstAfterMend - dead.toMillis()) / 1000.0);
    return f;
  }

  /**
   * What fails the run: a paused tenant called, a pause that could not be set, or a dead
   * endpoint that had events waiting and got none of them once mended.
   */
  static List<String> failures(Map<String, Object> figures) {
    List<String> failures = new ArrayList<>();
    if (figures.get("pausedFromSecond") == null) {
      failures.add("the pause of " + figures.get("pausedTenant") + " could not be set");
    } else if (((Number) figures.get("callsWhilePaused")).longValue() > 0) {
      failures.add("the paused tenant " + figures.get("pausedTenant") + " was called "
          + figures.get("callsWhilePaused") + " times while paused");
    }
    if (((Number) figures.get("deadAnswers")).longValue() > 0
        && ((Number) figures.get("deadEndpointDeliveredAfterMend")).longValue() == 0) {
      failures.add("the dead endpoint " + figures.get("deadEndpoint")
          + " was never called successfully once mended");
    }
    return failures;
  }
}
