package io.sluice.dispatcher.leak;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.config.ProviderLimit;
import io.sluice.dispatcher.DispatcherKeys;
import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * The leak of every provider in Redis, one hash per provider, through {@code lua/leaky_bucket.lua}:
 * EVALSHA, and on NOSCRIPT one EVAL with the text (which also caches the script on that node).
 *
 * <p>Takes the scripting commands of a standalone or a cluster connection
 * ({@code io.sluice.redis.RedisConnection#commands()}): Lettuce's cluster client routes
 * EVALSHA and EVAL by the slot of the key, and EVAL (rather than SCRIPT LOAD, which could land on
 * another node) puts the script on exactly the node that lacked it. One call per claim or 429.
 */
public final class RedisLeakyBucket implements LeakyBucket {
  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script;
  private final LeakConfig config;
  private final LongAdder calls = new LongAdder();
  private final LongAdder reloads = new LongAdder();

  public RedisLeakyBucket(RedisScriptingAsyncCommands<String, String> commands, LeakConfig config) {
    this(commands, LeakyBucketScript.load(), config);
  }

  public RedisLeakyBucket(RedisScriptingAsyncCommands<String, String> commands, LuaScript script,
      LeakConfig config) {
    this.commands = commands;
    this.script = script;
    this.config = config;
  }

  /**
   * {@code sluice:v1:{provider}:leak}: versioned, so a change of the stored fields can roll out
   * beside the old keys, and hash-tagged, so a Redis Cluster keeps it in one slot. Provider names
   * are {@code [A-Za-z0-9._-]}: no braces.
   */
  public static String redisKey(String provider) {
    return DispatcherKeys.leak(provider);
  }

  /**
   * A name's part of its keys: {@code {name}}, or the name as it is when it carries its own hash
   * tag ({@link ProviderTotal#laneKeyName}: {@code {hooks}/acme}, an endpoint lane under a total).
   */
  static String tagged(String name) {
    return DispatcherKeys.tagged(name);
  }

  /**
   * {@code sluice:v1:{provider}:total}: a per-tenant provider's total line ({@link ProviderTotal}),
   * a hash of {@code last} and {@code ts}, in the cluster slot of its endpoints' keys.
   */
  public static String totalKey(String provider) {
    return DispatcherKeys.total(provider);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted, long lookaheadMicros) {
    requireRate(ratePerSecond);
    if (wanted < 1 || lookaheadMicros < 0) {
      throw new IllegalArgumentException("wanted " + wanted + " must be >= 1, lookahead " + lookaheadMicros + " >= 0");
    }
    return run(new String[] {redisKey(provider)},
        LeakyBucketScript.claim(ratePerSecond, config, wanted, lookaheadMicros))
        .thenApply(LeakyBucketScript::slotClaim);
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros) {
    requireRate(ratePerSecond);
    if (retryAfterMillis < 0) {
      throw new IllegalArgumentException("retryAfter must not be negative, not " + retryAfterMillis);
    }
    return run(new String[] {redisKey(provider)},
        LeakyBucketScript.throttled(ratePerSecond, config, retryAfterMillis, startedAtMicros))
        .thenApply(LeakyBucketScript::throttleDecision);
  }

  /**
   * {@code sluice:v1:{provider}:limit:<id>}: one key per limit beyond the rate, named by the
   * limit's {@link io.sluice.config.ProviderLimit#id()} (not its amount, so a lowered
   * amount keeps the record), with the leak's hash tag: one cluster slot for the whole claim.
   */
  public static String limitKey(String provider, ProviderLimit limit) {
    return DispatcherKeys.limit(provider, limit.id());
  }

  @Override
  public CompletionStage<SlotClaim> claim(String lane, double ratePerSecond, int wanted,
      long lookaheadMicros, ProviderTotal total) {
    requireRate(ratePerSecond);
    if (wanted < 1 || lookaheadMicros < 0) {
      throw new IllegalArgumentException("wanted " + wanted + " must be >= 1, lookahead " + lookaheadMicros + " >= 0");
    }
    requireSameSlot(lane, total);
    return run(new String[] {redisKey(lane), totalKey(total.provider())},
        LeakyBucketScript.jointClaim(ratePerSecond, config, wanted, lookaheadMicros, total.ratePerSecond()))
        .thenApply(LeakyBucketScript::slotClaim);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request) {
    return claim(provider, limits, request, null);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request, ProviderTotal total) {
    if (!limits.hasLimitsBeyondRate()) {
      return total == null
          ? claim(provider, limits.ratePerSecond(), request.wanted(), request.lookaheadMicros())
          : claim(provider, limits.ratePerSecond(), request.wanted(), request.lookaheadMicros(),
              total);
    }
    if (total != null) {
      requireSameSlot(provider, total);
    }
    List<ProviderLimit> beyond = limits.beyondRate();
    // The leak, one key per limit, the marker of their cluster slot (lost data: see the script),
    // and the provider's total line when it has one.
    String[] keys = new String[2 + beyond.size() + (total == null ? 0 : 1)];
    if (total != null) {
      keys[keys.length - 1] = totalKey(total.provider());
    }
    keys[0] = redisKey(provider);
    keys[1 + beyond.size()] = SlotMarkers.markerOf(keys[0]);
    for (int i = 0; i < beyond.size(); i++) {
      keys[1 + i] = limitKey(provider, beyond.get(i));
    }
    // One flag a limit: '1' held full after a loss of Redis's data, '0' not (learned only).
    StringBuilder holds = new StringBuilder();
    beyond.forEach(l -> holds.append(limits.holdsAfterLoss(l) ? '1' : '0'));
    return run(keys, LeakyBucketScript.claim(limits.ratePerSecond(), config, request, beyond,
            holds.toString(), total == null ? null : total.ratePerSecond()))
        .thenApply(LeakyBucketScript::slotClaim);
  }

  @Override
  public CompletionStage<Void> release(String provider, String leaseId) {
    return run(new String[] {limitKey(provider, ProviderLimit.concurrency(1))},
        LeakyBucketScript.release(leaseId)).thenApply(reply -> null);
  }

  @Override
  public CompletionStage<Void> settle(String provider, ProviderLimits limits, long slotMicros,
      long reserved, long actual) {
    List<ProviderLimit> costs = limits.beyondRate().stream()
        .filter(l -> l.kind() == ProviderLimit.Kind.COST).toList();
    if (costs.isEmpty() || actual >= reserved) {
      return CompletableFuture.completedFuture(null);
    }
    String[] keys = costs.stream().map(l -> limitKey(provider, l)).toArray(String[]::new);
    return run(keys, LeakyBucketScript.settle(slotMicros, reserved, actual, costs))
        .thenApply(reply -> null);
  }

  /**
   * {@code sluice:v1:{provider}:busy}: a hash of each lane's busy tenants per tier, field the
   * lane, value {@code {"e": expiry, "t": {tier: count}}}; same hash tag as the leak.
   */
  public static String busyKey(String provider) {
    return DispatcherKeys.busy(provider);
  }

  @Override
  public CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
      Map<String, Integer> busyByTier, long ttlMicros) {
    if (ttlMicros <= 0) {
      throw new IllegalArgumentException("ttl must be positive, not " + ttlMicros);
    }
    return run(new String[] {busyKey(provider)}, LeakyBucketScript.busy(member, ttlMicros, busyByTier))
        .thenApply(LeakyBucketScript::busyCounts);
  }

  /** Script calls made (EVALSHA attempts): one per claim or 429. */
  public long calls() {
    return calls.sum();
  }

  /** Times a node answered NOSCRIPT and the script was sent in full. */
  public long reloads() {
    return reloads.sum();
  }

  /** One script call: the keys and the arguments {@link LeakyBucketScript} laid out. */
  private CompletionStage<List<Object>> run(String[] keys, String[] args) {
    calls.increment();
    return script.run(commands, keys, args, reloads::increment);
  }

  /** A lane claiming with a total must go by the total's hash tag ({@link ProviderTotal#laneKeyName}). */
  private static void requireSameSlot(String lane, ProviderTotal total) {
    if (!lane.startsWith("{" + total.provider() + "}")) {
      throw new IllegalArgumentException("the lane " + lane + " does not share the cluster slot of "
          + total.provider() + "'s total: name it " + "{" + total.provider() + "}/<tenant>");
    }
  }

  private static void requireRate(double ratePerSecond) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be a positive number, not " + ratePerSecond);
    }
  }

}
