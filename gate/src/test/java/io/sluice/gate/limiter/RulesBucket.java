package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tenant's multi-rule buckets as a history plays them ({@code quota_rules.lua}): one event's
 * rules charged all or none, at the history's time, and lost when the history says. Implemented by
 * the Java mirror ({@link Mirror}) and by the Lua on a redis-server ({@code QuotaBoundScriptIT}).
 */
interface RulesBucket {
  RulesAcquisition acquire(TokenBucketStore.RulesCall call, long nowMicros) throws Exception;

  /** Redis loses the slot of the tenant's buckets: the buckets and the slot's marker. */
  void wipe() throws Exception;

  /**
   * From when a change of rate counts for the bucket at {@code redisKey} (the mirror's): its last
   * charge as stored; for one a lost slot no longer has, the time a call now would rebuild it
   * from (the loss plus the hold; it refills at the rate in force then); -1 for one never seen
   * (full whatever the rate).
   */
  long updatedMicros(String redisKey);

  /** {@link QuotaRulesMath}, holding each bucket as the script would store it. */
  final class Mirror implements RulesBucket {
    private final Map<String, QuotaRulesMath.Level> stored = new HashMap<>();
    private boolean wiped;
    private long lostMicros;
    private long lastHoldMicros;

    @Override
    public RulesAcquisition acquire(TokenBucketStore.RulesCall call, long nowMicros) {
      if (wiped) {
        lostMicros = nowMicros; // the script finds the marker missing at its first call after
        wiped = false;
      }
      List<QuotaRulesMath.Level> states = new ArrayList<>();
      List<BucketSpec> specs = new ArrayList<>();
      for (RuleBucket b : call.buckets()) {
        states.add(stored.get(b.redisKey()));
        specs.add(b.spec());
      }
      lastHoldMicros = call.holdMicros();
      QuotaRulesMath.Step step = QuotaRulesMath.acquire(states, specs, call, nowMicros, lostMicros, 1);
      for (int i = 0; i < call.buckets().size(); i++) {
        if (step.next().get(i) != null) {
          stored.put(call.buckets().get(i).redisKey(), step.next().get(i));
        }
      }
      return step.acquisition();
    }

    @Override
    public void wipe() {
      stored.clear();
      wiped = true;
    }

    @Override
    public long updatedMicros(String redisKey) {
      QuotaRulesMath.Level level = stored.get(redisKey);
      if (level != null) {
        return level.updatedMicros();
      }
      // Refused calls store nothing, so a bucket lost stays missing until a charge; a call now
      // rebuilds it from the loss plus the hold at the new rate (QuotaRulesMath's "Lost data").
      return lostMicros > 0 && !wiped ? lostMicros + lastHoldMicros : -1;
    }
  }
}
