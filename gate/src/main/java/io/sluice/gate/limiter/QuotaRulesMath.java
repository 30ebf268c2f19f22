package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The pure-Java mirror of {@code lua/quota_rules.lua}, step for step (read the script's header for
 * why multi-rule events are charged only what every bucket holds now, and for leases across rules).
 * A specification table runs against both.
 */
public final class QuotaRulesMath {
  private static final double FIT_EPSILON = 1e-9;

  private QuotaRulesMath() {}

  /** A lease a bucket holds against its cap until its deadline. */
  public record Held(String id, long deadlineMicros, int units) {}

  /**
   * A multi-rule bucket as stored: its level, the time of its last charge, the leases it holds
   * (their units lower its cap until they end or are released), and the script's {@code sweep}: when
   * it next looks for ended leases (0: none). The sweep is the earliest deadline when a lease was
   * added or leases were swept; a release does not move it (the script would have to read every
   * lease), so it may lie before every live deadline. A call at or past it sweeps and writes the
   * bucket, refused or not: mirrored, since the stored time decides from when a changed rate
   * counts (QuotaBoundScriptIT found the mirror keeping the older time).
   */
  public record Level(double tokens, long updatedMicros, List<Held> leases, long sweepMicros) {
    public Level {
      leases = List.copyOf(leases);
    }

    /** A bucket whose sweep is its earliest lease's deadline. */
    public Level(double tokens, long updatedMicros, List<Held> leases) {
      this(tokens, updatedMicros, leases,
          leases.stream().mapToLong(Held::deadlineMicros).min().orElse(0));
    }

    public Level(double tokens, long updatedMicros) {
      this(tokens, updatedMicros, List.of());
    }

    public int held() {
      return leases.stream().mapToInt(Held::units).sum();
    }
  }

  /** A decision and every bucket after it (unchanged ones included; null stays null). */
  public record Step(RulesAcquisition acquisition, List<Level> next) {}

  /**
   * @param states     each rule's stored bucket, null for one Redis does not have
   * @param lostMicros the slot marker's value (0: nothing lost)
   */
  public static Step acquire(List<Level> states, List<BucketSpec> specs, int need, long nowMicros, long lostMicros) {
    return acquire(states, specs, new TokenBucketStore.RulesCall(List.of(), need), nowMicros, lostMicros, 1);
  }

  /**
   * The event {@code call} (its buckets' specs given apart), the {@code e}-th of its script call
   * (a lease's id is the time and {@code e}).
   */
  public static Step acquire(List<Level> states, List<BucketSpec> specs, TokenBucketStore.RulesCall call,
      long nowMicros, long lostMicros, int e) {
    int need = call.need();
    RulesRelease release = call.release();
    List<Double> levels = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    List<List<Held>> leases = new ArrayList<>();
    List<Boolean> changed = new ArrayList<>();
    List<Long> sweeps = new ArrayList<>();
    long wait = 0;
    for (int i = 0; i < specs.size(); i++) {
      BucketSpec spec = specs.get(i);
      Level s = states.get(i);
      double level;
      long ts;
      long sweep = 0;
      List<Held> held = new ArrayList<>();
      if (s == null) {
        level = spec.capacity();
        ts = nowMicros;
        if (lostMicros > 0) {
          // Empty as of the end of any lease it may have held (the script's "Lost data").
          ts = Math.max(nowMicros, lostMicros + call.holdMicros());
          level = Math.max(0, Math.min(spec.capacity(),
              (nowMicros - lostMicros - call.holdMicros()) * spec.refillPerSecond() / 1_000_000));
        }
      } else {
        level = s.tokens();
        ts = s.updatedMicros();
        sweep = s.sweepMicros();
        held.addAll(s.leases());
      }
      long at = Math.max(nowMicros, ts);
      // Leases ended by now, in deadline order: refill up to each under the cap of the time.
      List<Held> ended = new ArrayList<>(held.stream().filter(h -> h.deadlineMicros() <= at).toList());
      ended.sort(Comparator.comparingLong(Held::deadlineMicros));
      for (Held h : ended) {
        if (h.deadlineMicros() > ts) {
          level = Math.min(spec.capacity() - units(held),
              level + (h.deadlineMicros() - ts) * spec.refillPerSecond() / 1_000_000);
          ts = h.deadlineMicros();
        }
        held.remove(h);
      }
      // The script sweeps at or past its sweep time, and then writes the bucket even if nothing
      // ended (a lease released since had set it); every lease ended by now is at or past it.
      boolean touched = sweep > 0 && sweep <= at;
      if (touched) {
        sweep = held.stream().mapToLong(Held::deadlineMicros).min().orElse(0);
      }
      level = Math.min(spec.capacity() - units(held), level + (at - ts) * spec.refillPerSecond() / 1_000_000);
      if (release != null) {
        Held named = held.stream().filter(h -> h.id().equals(release.id())
            && h.deadlineMicros() == release.deadlineMicros() && h.units() == release.units()).findFirst().orElse(null);
        if (named != null) {
          held.remove(named);
          level = Math.min(spec.capacity() - units(held), level + Math.max(0, release.units() - release.used()));
          touched = true;
        }
      }
      levels.add(level);
      times.add(at);
      leases.add(held);
      sweeps.add(sweep);
      changed.add(touched);
      double must = Math.min(need, spec.capacity());
      if (level + FIT_EPSILON < must) {
        wait = Math.max(wait, (at - nowMicros) + (long) Math.ceil((must - level) * 1_000_000 / spec.refillPerSecond()));
      }
    }
    List<Level> next = new ArrayList<>(states);
    int granted = 0;
    int extra = 0;
    long leaseEnd = 0;
    String leaseId = "";
    if (wait == 0) {
      granted = need;
      if (call.want() > need && call.holdMicros() > 0) {
        extra = call.want() - need;
        for (double level : levels) {
          extra = (int) Math.min(extra, Math.floor(level) - need);
        }
        extra = Math.max(0, extra);
      }
      if (extra > 0) {
        leaseEnd = nowMicros + call.holdMicros();
        leaseId = nowMicros + "." + e;
      }
    }
    for (int i = 0; i < specs.size(); i++) {
      if (wait > 0 && !changed.get(i)) {
        continue; // refused and nothing let go: stored as it was (the script writes nothing)
      }
      List<Held> held = leases.get(i);
      long sweep = sweeps.get(i);
      if (extra > 0) {
        held.add(new Held(leaseId, leaseEnd, extra));
        sweep = sweep == 0 ? leaseEnd : Math.min(sweep, leaseEnd);
      }
      double level = levels.get(i) - (wait == 0 ? need + extra : 0);
      next.set(i, new Level(level, times.get(i), held, sweep));
    }
    return new Step(new RulesAcquisition(granted, nowMicros, wait, levels, extra, leaseEnd, leaseId), next);
  }

  private static int units(List<Held> held) {
    return held.stream().mapToInt(Held::units).sum();
  }
}
