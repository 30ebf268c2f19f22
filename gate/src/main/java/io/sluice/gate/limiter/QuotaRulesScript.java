package io.sluice.gate.limiter;

import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import io.sluice.gate.limiter.TokenBucketStore.RulesCall;
import java.util.ArrayList;
import java.util.List;

/**
 * The gate's multi-rule script, {@code lua/quota_rules.lua}, and its calling convention: one
 * event's arguments and answers by the names the script's header gives them ({@link Arg},
 * {@link BucketArg}, {@link Answer}; {@code QuotaRulesScriptHeaderTest} holds them to it). Event
 * e's keys are its n buckets then their slot's marker; its arguments {@link Arg}, then each
 * bucket's {@link BucketArg}; its answers {@link Answer}, then each bucket's level. A batch is its
 * events one after the other.
 */
public final class QuotaRulesScript {
  public static final String RESOURCE = "/lua/quota_rules.lua";

  /** {@code ARGV[a + 1 .. a + 5]} of one event. */
  public enum Arg {
    N, NEED, WANT, HOLD_US, RELEASE
  }

  /** Bucket i's two arguments, {@code ARGV[a + 2 * i + 4]} and {@code ARGV[a + 2 * i + 5]}. */
  public enum BucketArg {
    CAPACITY, REFILL
  }

  /** One event's answers before its buckets' levels ({@code level_1 .. level_n}). */
  public enum Answer {
    GRANTED, NOW_US, WAIT_US, LEASE_UNITS, LEASE_END_US, LEASE_ID
  }

  /** The keys and arguments of one script call. */
  record Call(String[] keys, String[] args) {}

  private QuotaRulesScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }

  /** Every event's keys and arguments in turn (the script's batch form). */
  static Call encode(List<RulesCall> batch) {
    List<String> keys = new ArrayList<>();
    List<String> args = new ArrayList<>();
    for (RulesCall c : batch) {
      List<RuleBucket> buckets = c.buckets();
      String[] event = new String[Arg.values().length];
      event[Arg.N.ordinal()] = Integer.toString(buckets.size());
      event[Arg.NEED.ordinal()] = Integer.toString(c.need());
      event[Arg.WANT.ordinal()] = Integer.toString(c.want());
      event[Arg.HOLD_US.ordinal()] = Long.toString(c.holdMicros());
      event[Arg.RELEASE.ordinal()] = c.release() == null ? "" : c.release().encode();
      args.addAll(List.of(event));
      for (RuleBucket b : buckets) {
        keys.add(b.redisKey());
        String[] bucket = new String[BucketArg.values().length];
        bucket[BucketArg.CAPACITY.ordinal()] = Double.toString(b.spec().capacity());
        bucket[BucketArg.REFILL.ordinal()] = Double.toString(b.spec().refillPerSecond());
        args.addAll(List.of(bucket));
      }
      // The marker of the first bucket's slot: the tenant's slot (a tier-wide budget, never
      // first, is allowed only on a standalone Redis, where every marker goes when data is lost).
      keys.add(SlotMarkers.markerOf(buckets.get(0).redisKey()));
    }
    return new Call(keys.toArray(String[]::new), args.toArray(String[]::new));
  }

  /** The answers to {@code batch}, in its order: {@link Answer} then n levels each. */
  static List<RulesAcquisition> decode(List<RulesCall> batch, List<Object> reply) {
    List<RulesAcquisition> answers = new ArrayList<>(batch.size());
    int o = 0;
    for (RulesCall c : batch) {
      int n = c.buckets().size();
      int at = o;
      List<Double> levels = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        levels.add(Double.parseDouble((String) reply.get(at + Answer.values().length + i)));
      }
      answers.add(new RulesAcquisition(
          ((Long) reply.get(at + Answer.GRANTED.ordinal())).intValue(),
          LuaScript.whole(reply.get(at + Answer.NOW_US.ordinal())),
          LuaScript.whole(reply.get(at + Answer.WAIT_US.ordinal())),
          levels,
          (int) LuaScript.whole(reply.get(at + Answer.LEASE_UNITS.ordinal())),
          LuaScript.whole(reply.get(at + Answer.LEASE_END_US.ordinal())),
          (String) reply.get(at + Answer.LEASE_ID.ordinal())));
      o += Answer.values().length + n;
    }
    return answers;
  }
}
