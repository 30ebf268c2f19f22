package io.sluice.topology.limiter;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.AsyncFailure;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

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
   * Gives every slot without one its marker ({@link SlotMarkers}), once when a gate starts.
   *
   * <p>A missing marker means one of two things. On a Redis that holds no marker at all, and for
   * a gate whose application never ran before ({@code ranBefore}), it is a first use: "0",
   * nothing lost. Otherwise Redis lost that slot's data while no script touched it: a FLUSHALL or
   * a restart without persistence while no gate ran, one shard of a cluster wiped, the marker
   * evicted. Marking such a slot intact would start its buckets full beside the paid
   * reservations still in the ladder, so it is stamped with the time the loss was found, exactly
   * as the script stamps a loss it finds itself (token_bucket.lua, "Lost data").
   */
  public CompletionStage<Void> markSlots(boolean ranBefore) {
    List<String> markers = SlotMarkers.all();
    // Scripts rather than plain commands: these are the only commands the store is given, and a
    // cluster connection routes each by its marker's slot.
    return inBatches(markers, 0, 0L, marker -> commands.<Long>eval(EXISTS,
        ScriptOutputType.INTEGER, new String[] {marker})).thenCompose(found -> {
          String mode = ranBefore || found > 0 ? "lost" : "intact";
          return inBatches(markers, 0, 0L, marker -> commands.<String>eval(MARK,
              ScriptOutputType.STATUS, new String[] {marker}, mode).thenApply(ok -> 0L));
        }).thenApply(done -> null);
  }

  /**
   * Markers set per round trip. All 16,384 at once made each command wait behind the others, and
   * on a busy machine (a 2-core box starting a broker and three JVMs) the last ones passed the
   * client's 2 s command timeout, which failed the gate's start. A batch at a time keeps every
   * command's wait to one batch's; both scripts are idempotent, so a batch that timed out is
   * simply sent again ({@value #BATCH_ATTEMPTS} times at most).
   */
  static final int MARK_BATCH = 512;
  static final int BATCH_ATTEMPTS = 3;

  /** Runs {@code command} for each marker from {@code from}, a batch at a time; sums the replies. */
  private CompletableFuture<Long> inBatches(List<String> markers, int from, long sum,
      Function<String, CompletionStage<Long>> command) {
    if (from >= markers.size()) {
      return CompletableFuture.completedFuture(sum);
    }
    List<String> batch = markers.subList(from, Math.min(markers.size(), from + MARK_BATCH));
    return batchWithRetries(batch, command, 1)
        .thenCompose(n -> inBatches(markers, from + batch.size(), sum + n, command));
  }

  private CompletableFuture<Long> batchWithRetries(List<String> batch,
      Function<String, CompletionStage<Long>> command, int attempt) {
    List<CompletableFuture<Long>> replies = new ArrayList<>(batch.size());
    for (String marker : batch) {
      replies.add(command.apply(marker).toCompletableFuture());
    }
    return CompletableFuture.allOf(replies.toArray(new CompletableFuture[0]))
        .handle((done, error) -> {
          if (error == null) {
            return CompletableFuture.completedFuture(
                replies.stream().mapToLong(CompletableFuture::join).sum());
          }
          Throwable cause = AsyncFailure.cause(error);
          if (cause instanceof RedisCommandTimeoutException
              && attempt < BATCH_ATTEMPTS) {
            return batchWithRetries(batch, command, attempt + 1);
          }
          return CompletableFuture.<Long>failedFuture(cause);
        }).thenCompose(f -> f);
  }

  private static final String EXISTS = "return redis.call('EXISTS', KEYS[1])";
  private static final String MARK = """
      if redis.call('EXISTS', KEYS[1]) == 1 then return 'OK' end
      if ARGV[1] == 'lost' then
        local t = redis.call('TIME')
        redis.call('SET', KEYS[1], string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2])))
      else
        redis.call('SET', KEYS[1], '0')
      end
      return 'OK'""";

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
