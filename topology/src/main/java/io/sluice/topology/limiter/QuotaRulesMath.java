package io.sluice.topology.limiter;

import java.util.ArrayList;
import java.util.List;

/**
 * The pure-Java mirror of {@code lua/quota_rules.lua}, step for step (read the script's header for
 * why multi-rule events are charged only what every bucket holds now). A specification table runs
 * against both.
 */
public final class QuotaRulesMath {
  private static final double FIT_EPSILON = 1e-9;

  private QuotaRulesMath() {}

  /** A multi-rule bucket as stored: its level and the time of its last charge. */
  public record Level(double tokens, long updatedMicros) {}

  /** A decision and every bucket after it (unchanged ones included; null stays null). */
  public record Step(RulesAcquisition acquisition, List<Level> next) {}

  /**
   * @param states     each rule's stored bucket, null for one Redis does not have
   * @param lostMicros the slot marker's value (0: nothing lost)
   */
  public static Step acquire(List<Level> states, List<BucketSpec> specs, int need, long nowMicros, long lostMicros) {
    List<Double> levels = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    long wait = 0;
    for (int i = 0; i < specs.size(); i++) {
      BucketSpec spec = specs.get(i);
      Level s = states.get(i);
      double level;
      long ts;
      if (s == null) {
        level = spec.capacity();
        ts = nowMicros;
        if (lostMicros > 0) {
          level = Math.min(spec.capacity(), (nowMicros - lostMicros) * spec.refillPerSecond() / 1_000_000);
        }
      } else {
        level = s.tokens();
        ts = s.updatedMicros();
      }
      long at = Math.max(nowMicros, ts);
      level = Math.min(spec.capacity(), level + (at - ts) * spec.refillPerSecond() / 1_000_000);
      levels.add(level);
      times.add(at);
      double must = Math.min(need, spec.capacity());
      if (level + FIT_EPSILON < must) {
        wait = Math.max(wait, (at - nowMicros) + (long) Math.ceil((must - level) * 1_000_000 / spec.refillPerSecond()));
      }
    }
    List<Level> next = new ArrayList<>(states);
    int granted = 0;
    if (wait == 0) {
      granted = need;
      for (int i = 0; i < specs.size(); i++) {
        next.set(i, new Level(levels.get(i) - need, times.get(i)));
      }
    }
    return new Step(new RulesAcquisition(granted, nowMicros, wait, levels), next);
  }
}
