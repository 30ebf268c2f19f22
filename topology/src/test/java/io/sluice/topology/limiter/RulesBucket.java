package io.sluice.topology.limiter;

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

  /** {@link QuotaRulesMath}, holding each bucket as the script would store it. */
  final class Mirror implements RulesBucket {
    private final Map<String, QuotaRulesMath.Level> stored = new HashMap<>();
    private boolean wiped;
    private long lostMicros;

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
  }
}
