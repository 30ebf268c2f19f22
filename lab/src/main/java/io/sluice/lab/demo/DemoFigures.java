package io.sluice.lab.demo;

import io.sluice.app.SluiceMetrics;
import io.sluice.app.Verify;
import io.sluice.embedded.mock.MockProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns the demo's samples, the provider's call log and the reconciliation into its report. */
final class DemoFigures {
  private DemoFigures() {}

  static DemoReport report(DemoScenario scenario, List<Sample> samples,
      List<MockProvider.Call> calls, long startNanos, long provider429, SluiceMetrics metrics,
      Verify.Report verify, double elapsedSeconds) {
    Sample last = samples.get(samples.size() - 1);
    Map<String, Long> deliveredByTier = new LinkedHashMap<>();
    for (String tier : ReportWriter.TIERS) {
      deliveredByTier.put(tier, metrics.count("sluice_dispatch_delivered", "provider",
          DemoScenario.PROVIDER, "tier", tier));
    }
    long[] callMillis = calls.stream().mapToLong(c -> (c.atNanos() - startNanos) / 1_000_000)
        .sorted().toArray();
    // The achieved leak counts only time when the dispatcher had work waiting: between two
    // consecutive samples that both saw a non-empty buffer. Idle time says nothing about the leak.
    long saturatedMillis = 0;
    long saturatedCalls = 0;
    for (int i = 1; i < samples.size(); i++) {
      Sample a = samples.get(i - 1);
      Sample b = samples.get(i);
      if (a.buffered() > 0 && b.buffered() > 0) {
        saturatedMillis += b.atMillis() - a.atMillis();
        saturatedCalls += countBetween(callMillis, a.atMillis(), b.atMillis());
      }
    }
    double achieved = saturatedMillis == 0 ? 0 : saturatedCalls * 1000.0 / saturatedMillis;
    return new DemoReport(
        scenario.duration().toMillis() / 1000.0,
        elapsedSeconds,
        verify.inbound(),
        verify.delivered(),
        verify.deadLettered(),
        verify.missing().size(),
        verify.missing().stream().limit(20).toList(),
        last.callsByTier(),
        deliveredByTier,
        DemoScenario.WEIGHTS,
        scenario.rate(),
        achieved,
        saturatedMillis / 1000.0,
        maxInAnySecond(callMillis),
        provider429,
        verify.deadByReason(),
        last.admitted(),
        last.deferred(),
        timeline(samples));
  }

  private static long countBetween(long[] sorted, long from, long to) {
    return lowerBound(sorted, to) - lowerBound(sorted, from);
  }

  private static int lowerBound(long[] sorted, long key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static int maxInAnySecond(long[] sortedMillis) {
    int best = 0;
    int j = 0;
    for (int i = 0; i < sortedMillis.length; i++) {
      while (sortedMillis[i] - sortedMillis[j] >= 1000) {
        j++;
      }
      best = Math.max(best, i - j + 1);
    }
    return best;
  }

  /** One entry per whole second: counter deltas over that second, levels at its end. */
  private static List<DemoReport.Second> timeline(List<Sample> samples) {
    List<DemoReport.Second> seconds = new ArrayList<>();
    Sample previous = null;
    int second = 0;
    for (Sample s : samples) {
      if (s.atMillis() < (second + 1) * 1000L) {
        continue;
      }
      Map<String, Long> calls = new LinkedHashMap<>();
      for (String tier : ReportWriter.TIERS) {
        long before = previous == null ? 0 : previous.callsByTier().get(tier);
        calls.put(tier, s.callsByTier().get(tier) - before);
      }
      long tooMany = s.provider429() - (previous == null ? 0 : previous.provider429());
      seconds.add(new DemoReport.Second(second, calls, tooMany, s.backlog(), s.buffered()));
      previous = s;
      second++;
    }
    return seconds;
  }
}
