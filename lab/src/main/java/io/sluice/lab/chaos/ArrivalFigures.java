package io.sluice.lab.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the provider saw, reduced to the chaos run's figures: duplicate deliveries, the longest
 * stretch without a call, and 429s that no storm explains.
 *
 * <p>A duplicate is a 2xx answer for an id beyond its first 2xx: a call the provider carried out
 * twice (an {@code Idempotency-Key} makes it harmless, but each costs the provider a call). A call
 * the provider held past the client's timeout ({@link Arrival#HUNG}) is not counted as carried out.
 */
public final class ArrivalFigures {
  /** One call as the provider saw it. {@code storm}: answered 429 because of a scheduled storm. */
  public record Arrival(long atMillis, String provider, String key, int status, boolean storm) {
    /** Status recorded for a call held past the client's timeout. */
    public static final int HUNG = -1;

    boolean succeeded() {
      return status >= 200 && status < 300;
    }
  }

  /** The longest stretch with no call, from {@code fromMillis}. */
  public record Gap(long millis, long fromMillis) {}

  public record Figures(long calls, long idsDelivered, long duplicates, int maxDeliveriesOfOneId,
      Gap longestGap, Map<String, Gap> longestGapByProvider,
      Map<String, Long> tooManyOutsideStorm, long stormAnswers) {}

  private ArrivalFigures() {}

  public static Figures of(List<Arrival> arrivals) {
    List<Arrival> sorted = new ArrayList<>(arrivals);
    sorted.sort(Comparator.comparingLong(Arrival::atMillis));
    Map<String, Integer> deliveriesById = new HashMap<>();
    Map<String, Long> tooMany = new TreeMap<>();
    Map<String, List<Arrival>> byProvider = new TreeMap<>();
    long storm = 0;
    for (Arrival a : sorted) {
      if (a.succeeded()) {
        deliveriesById.merge(a.key(), 1, Integer::sum);
      }
      tooMany.putIfAbsent(a.provider(), 0L);
      if (a.status() == 429) {
        if (a.storm()) {
          storm++;
        } else {
          tooMany.merge(a.provider(), 1L, Long::sum);
        }
      }
      byProvider.computeIfAbsent(a.provider(), p -> new ArrayList<>()).add(a);
    }
    long duplicates = 0;
    int most = 0;
    for (int n : deliveriesById.values()) {
      duplicates += n - 1;
      most = Math.max(most, n);
    }
    Map<String, Gap> gaps = new TreeMap<>();
    byProvider.forEach((p, list) -> gaps.put(p, longestGap(list)));
    return new Figures(sorted.size(), deliveriesById.size(), duplicates, most,
        longestGap(sorted), gaps, tooMany, storm);
  }

  /** The longest time between two consecutive calls of a sorted list (0 for fewer than two). */
  static Gap longestGap(List<Arrival> sorted) {
    Gap longest = new Gap(0, sorted.isEmpty() ? 0 : sorted.get(0).atMillis());
    for (int i = 1; i < sorted.size(); i++) {
      long gap = sorted.get(i).atMillis() - sorted.get(i - 1).atMillis();
      if (gap > longest.millis()) {
        longest = new Gap(gap, sorted.get(i - 1).atMillis());
      }
    }
    return longest;
  }
}
