package io.sluice.topology.limiter;

import io.sluice.topology.redis.LuaScript;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
      request.holder() ? "1" : "0",
      Long.toString(request.holdMicros()),
      request.release() == null ? "" : request.release().encode(),
      request.places() == null ? "" : request.places().encode(),
      request.shadow() ? "1" : "0"
    };
    calls.increment();
    return script.run(commands, keys, args, reloads::increment)
        .thenApply(LettuceTokenBucketStore::toAcquisition);
  }

  /**
   * Sets every slot's marker to "nothing lost" where it is missing ({@link SlotMarkers}): a gate
   * starting against an empty Redis takes it for a first use. Called once at start; a slot found
   * without its marker later (Redis lost its data under running gates) is the script's to handle.
   */
  public CompletionStage<Void> markSlotsIntact() {
    List<CompletableFuture<Object>> sets = new ArrayList<>();
    for (String marker : SlotMarkers.all()) {
      // A script rather than SET NX: these are the only commands the store is given, and a
      // cluster connection routes it by the marker's slot.
      sets.add(commands.<Object>eval(MARK_INTACT, ScriptOutputType.STATUS, new String[] {marker})
          .toCompletableFuture());
    }
    return CompletableFuture.allOf(sets.toArray(new CompletableFuture[0]));
  }

  private static final String MARK_INTACT = "redis.call('SET', KEYS[1], '0', 'NX') return 'OK'";

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
