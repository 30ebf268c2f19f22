package io.sluice.topology.limiter;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs {@code token_bucket.lua} through Lettuce: EVALSHA, and on NOSCRIPT one EVAL with the text
 * (which also caches the script on that node, so the next EVALSHA succeeds).
 *
 * <p>Takes the scripting commands of either a standalone connection or a cluster connection:
 * Lettuce's cluster client routes EVALSHA by the slot of the first key, and EVAL (rather than
 * SCRIPT LOAD, which could land on another node) puts the script on exactly the node that lacked
 * it. The script's keys are the bucket and its slot's marker ({@link SlotMarkers}), one slot.
 */
public final class LettuceTokenBucketStore implements TokenBucketStore {
  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script;
  private final LuaScript rulesScript = QuotaRulesScript.load();
  private final LongAdder calls = new LongAdder();
  private final LongAdder reloads = new LongAdder();

  public LettuceTokenBucketStore(RedisScriptingAsyncCommands<String, String> commands, LuaScript script) {
    this.commands = commands;
    this.script = script;
  }

  @Override
  public CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
    String[] keys = {key.redisKey(), SlotMarkers.markerOf(key.redisKey())};
    String[] args = {
      Double.toString(spec.capacity()),
      Double.toString(spec.refillPerSecond()),
      Integer.toString(request.want()),
      Integer.toString(request.need()),
      Long.toString(spec.horizonMicros()),
      request.owed() ? "2" : request.holder() ? "1" : "0",
      Long.toString(request.holdMicros()),
      request.release() == null ? "" : request.release().encode(),
      request.places() == null ? "" : request.places().encode(),
      request.shadow() ? "1" : "0"
    };
    calls.increment();
    return script.run(commands, keys, args, reloads::increment)
        .thenApply(LettuceTokenBucketStore::toAcquisition);
  }

  @Override
  public CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    String[] keys = new String[buckets.size() + 1];
    String[] args = new String[1 + 2 * buckets.size()];
    args[0] = Integer.toString(need);
    for (int i = 0; i < buckets.size(); i++) {
      keys[i] = buckets.get(i).redisKey();
      args[1 + 2 * i] = Double.toString(buckets.get(i).spec().capacity());
      args[2 + 2 * i] = Double.toString(buckets.get(i).spec().refillPerSecond());
    }
    // The marker of the first bucket's slot: the tenant's slot (a tier-wide budget, never first,
    // is allowed only on a standalone Redis, where every marker goes when data is lost).
    keys[buckets.size()] = SlotMarkers.markerOf(keys[0]);
    calls.increment();
    return rulesScript.run(commands, keys, args, reloads::increment)
        .thenApply(LettuceTokenBucketStore::toRulesAcquisition);
  }

  static RulesAcquisition toRulesAcquisition(List<Object> reply) {
    List<Double> levels = new ArrayList<>();
    for (int i = 3; i < reply.size(); i++) {
      levels.add(Double.parseDouble((String) reply.get(i)));
    }
    return new RulesAcquisition(((Long) reply.get(0)).intValue(), Long.parseLong((String) reply.get(1)),
        Long.parseLong((String) reply.get(2)), levels);
  }

  /** {@link #markSlots(boolean)} for a Redis no gate used before: tests and benches. */
  public CompletionStage<Void> markSlotsIntact() {
    return markSlots(false);
  }

  /**
   * Gives every slot without one its marker, once when a gate starts ({@link SlotMarkers#mark}:
   * a slot found without one on a Redis that held markers, or by a gate that ran before, is
   * stamped as lost).
   */
  public CompletionStage<Void> markSlots(boolean ranBefore) {
    return SlotMarkers.mark(commands, ranBefore);
  }

  /** Script calls made (EVALSHA attempts), for the Redis-calls-per-event figure. */
  public long calls() {
    return calls.sum();
  }

  /** Times a node answered NOSCRIPT and the script was sent in full. */
  public long reloads() {
    return reloads.sum();
  }

  static Acquisition toAcquisition(List<Object> reply) {
    return new Acquisition(
        ((Long) reply.get(0)).intValue(),
        Double.parseDouble((String) reply.get(1)),
        Long.parseLong((String) reply.get(2)),
        Long.parseLong((String) reply.get(3)),
        (Long) reply.get(4),
        Long.parseLong((String) reply.get(5)),
        Long.parseLong((String) reply.get(6)));
  }

}
