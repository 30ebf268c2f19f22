package io.sluice.redis;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * One marker key per Redis Cluster slot, {@code sluice:v1:{~tag}:marker}, the tag chosen so the
 * marker lands in that slot: the gate's token-bucket script and the dispatcher's leak script read
 * the marker of their key's slot (a script may only touch keys of one slot), and a missing marker
 * tells them that Redis lost the slot's data.
 *
 * <p>Value: {@code 0} when nothing is known lost (set by the gate at start where no marker is yet:
 * a first use of this Redis), or the Redis time in microseconds at which the script found the
 * marker missing: from then on, for one reservation horizon, a bucket Redis no longer has may have
 * paid reservations still in the ladder, and starts as if it held a full horizon of them (see
 * {@code token_bucket.lua}), and a provider's windows and concurrency leases Redis no longer has
 * hold their whole amount until the lost ones would have left them (see {@code leaky_bucket.lua}).
 * The marker has no TTL; on a standalone server the 16384 markers are about a megabyte.
 */
public final class SlotMarkers {
  /** "~" appears in no tenant or provider name, so a marker never shares a key with a bucket. */
  private static final String[] TAGS = tags();

  private SlotMarkers() {}

  /** The marker of the slot {@code redisKey} hashes to (hash tags respected). */
  public static String markerOf(String redisKey) {
    return marker(TAGS[SlotHash.getSlot(redisKey)]);
  }

  /** Every slot's marker, one per slot. */
  public static List<String> all() {
    List<String> keys = new ArrayList<>(SlotHash.SLOT_COUNT);
    for (String tag : TAGS) {
      keys.add(marker(tag));
    }
    return keys;
  }

  private static String marker(String tag) {
    return RedisKeys.marker(tag);
  }

  /**
   * Gives every slot without one its marker, once when a gate or a dispatcher starts (before its
   * first script call).
   *
   * <p>A missing marker means one of two things. On a Redis that holds no marker at all, and for
   * a role that has no sign of having run before ({@code ranBefore}), it is a first use: "0",
   * nothing lost. Otherwise Redis lost that slot's data while no script touched it: a FLUSHALL or
   * a restart without persistence while no role ran, one shard of a cluster wiped, the marker
   * evicted. Marking such a slot intact would start its buckets full beside the paid reservations
   * still in the ladder, and its providers' windows empty beside the calls already made, so it is
   * stamped with the time the loss was found, exactly as the scripts stamp a loss they find.
   *
   * @param commands a standalone or cluster connection's scripting commands (a cluster
   *                 connection routes each marker's script by its slot)
   */
  public static CompletionStage<Void> mark(RedisScriptingAsyncCommands<String, String> commands,
      boolean ranBefore) {
    List<String> markers = all();
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
  private static CompletableFuture<Long> inBatches(List<String> markers, int from, long sum,
      Function<String, CompletionStage<Long>> command) {
    if (from >= markers.size()) {
      return CompletableFuture.completedFuture(sum);
    }
    List<String> batch = markers.subList(from, Math.min(markers.size(), from + MARK_BATCH));
    return batchWithRetries(batch, command, 1)
        .thenCompose(n -> inBatches(markers, from + batch.size(), sum + n, command));
  }

  private static CompletableFuture<Long> batchWithRetries(List<String> batch,
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
          if (cause instanceof RedisCommandTimeoutException && attempt < BATCH_ATTEMPTS) {
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

  /** The first "~n" (n in base 36) that hashes to each slot: about 170,000 CRC16s, once. */
  private static String[] tags() {
    String[] tags = new String[SlotHash.SLOT_COUNT];
    int found = 0;
    for (long n = 0; found < tags.length; n++) {
      String tag = "~" + Long.toString(n, 36);
      int slot = SlotHash.getSlot(tag);
      if (tags[slot] == null) {
        tags[slot] = tag;
        found++;
      }
    }
    return tags;
  }
}
