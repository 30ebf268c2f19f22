package io.sluice.gate.limiter;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
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
  private final LuaScript rulesScript;
  private final LongAdder calls = new LongAdder();
  private final LongAdder reloads = new LongAdder();

  public LettuceTokenBucketStore(RedisScriptingAsyncCommands<String, String> commands, LuaScript script) {
    this(commands, script, QuotaRulesScript.load());
  }

  /** With the multi-rule script given too (tests: one whose clock is the test's). */
  LettuceTokenBucketStore(RedisScriptingAsyncCommands<String, String> commands, LuaScript script,
      LuaScript rulesScript) {
    this.commands = commands;
    this.script = script;
    this.rulesScript = rulesScript;
  }

  @Override
  public CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
    return run(List.of(new BucketCall(key, spec, request))).thenApply(list -> list.get(0));
  }

  /**
   * One script call for the whole batch on a standalone Redis; on a cluster one per slot, sent
   * together (a script's keys must share a slot), the answers put back in the order asked.
   */
  @Override
  public CompletionStage<List<Acquisition>> acquireBatch(List<BucketCall> batch) {
    return bySlot(batch, c -> c.key().redisKey(), this::run);
  }

  /**
   * {@code run} for the whole batch on a standalone Redis; on a cluster once per slot, the parts
   * sent together (a script's keys must share a slot), the answers put back in the order asked.
   */
  private <C, A> CompletionStage<List<A>> bySlot(List<C> batch, Function<C, String> keyOf,
      Function<List<C>, CompletableFuture<List<A>>> run) {
    if (!(commands instanceof RedisAdvancedClusterAsyncCommands)) {
      return run.apply(batch);
    }
    Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      bySlot.computeIfAbsent(SlotHash.getSlot(keyOf.apply(batch.get(i))), s -> new ArrayList<>()).add(i);
    }
    List<A> answers = new ArrayList<>(Collections.nCopies(batch.size(), null));
    CompletableFuture<?>[] parts = new CompletableFuture<?>[bySlot.size()];
    int p = 0;
    for (List<Integer> slot : bySlot.values()) {
      List<C> part = new ArrayList<>(slot.size());
      slot.forEach(i -> part.add(batch.get(i)));
      parts[p++] = run.apply(part).thenAccept(got -> {
        synchronized (answers) {
          for (int j = 0; j < slot.size(); j++) {
            answers.set(slot.get(j), got.get(j));
          }
        }
      });
    }
    return CompletableFuture.allOf(parts).thenApply(v -> {
      synchronized (answers) {
        return List.copyOf(answers);
      }
    });
  }

  /** One script call deciding {@code batch} in order (token_bucket.lua's batch form). */
  private CompletableFuture<List<Acquisition>> run(List<BucketCall> batch) {
    TokenBucketScript.Call call = TokenBucketScript.encode(batch);
    calls.increment();
    return script.run(commands, call.keys(), call.args(), reloads::increment)
        .thenApply(TokenBucketScript::decode);
  }

  @Override
  public CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    return runRules(List.of(new RulesCall(buckets, need))).thenApply(list -> list.get(0));
  }

  /** As {@link #acquireBatch}: one call, or on a cluster one per slot of each event's first bucket. */
  @Override
  public CompletionStage<List<RulesAcquisition>> acquireAllBatch(List<RulesCall> batch) {
    return bySlot(batch, c -> c.buckets().get(0).redisKey(), this::runRules);
  }

  /** Every event's keys and arguments in turn (quota_rules.lua's batch form). */
  private CompletableFuture<List<RulesAcquisition>> runRules(List<RulesCall> batch) {
    QuotaRulesScript.Call call = QuotaRulesScript.encode(batch);
    calls.increment();
    return rulesScript.run(commands, call.keys(), call.args(), reloads::increment)
        .thenApply(reply -> QuotaRulesScript.decode(batch, reply));
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
}
