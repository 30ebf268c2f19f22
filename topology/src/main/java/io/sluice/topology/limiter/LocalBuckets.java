package io.sluice.topology.limiter;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The {@code local} answer to a Redis outage: the same bucket math ({@link TokenBucketMath}) run
 * in-process on the local clock, each bucket at this instance's share of the quota (capacity and
 * refill times {@code 1 / gate instances}), so that N instances together stay near the quota
 * without talking to each other. It starts full: an instance cannot know what Redis held, and a
 * full bucket at 1/N of the capacity bounds the surplus of the whole fleet by one capacity.
 *
 * <p>One instance per stream task, like {@link GateLimiter}; not thread-safe.
 */
public final class LocalBuckets {
  private final DoubleSupplier share;
  private final Map<BucketKey, BucketState> states =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BucketKey, BucketState> eldest) {
          return size() > GateLimiter.MAX_REMEMBERED;
        }
      };

  /** @param share this instance's fraction of every quota, in (0, 1] */
  public LocalBuckets(DoubleSupplier share) {
    this.share = share;
  }

  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, long nowMillis) {
    return decide(key, spec, cost, nowMillis, false);
  }

  /** As above; in shadow mode only what the local bucket holds now is charged (see GateLimiter). */
  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, long nowMillis, boolean shadow) {
    BucketSpec mine = spec.share(Math.min(1, Math.max(1e-6, share.getAsDouble())));
    long nowMicros = nowMillis * 1000;
    AcquireRequest request = shadow ? AcquireRequest.shadowing(cost, cost, 0) : AcquireRequest.holding(cost);
    TokenBucketMath.Step step = TokenBucketMath.acquire(states.get(key), mine, request, nowMicros);
    states.put(key, step.next());
    Acquisition a = step.acquisition();
    if (shadow && !a.isGranted()) {
      return new LimiterDecision.WouldDefer(LimiterDecision.ceilMillis(a.nowMicros() + a.ticketMicros()));
    }
    long due = a.nowMicros() + (long) Math.ceil(Math.max(0, (cost - a.levelBefore()) * mine.microsPerUnit()));
    if (due <= nowMicros) {
      return new LimiterDecision.Admit(nowMillis);
    }
    return new LimiterDecision.Reserved(LimiterDecision.ceilMillis(due));
  }

  /** Forgets every local bucket (when Redis is back, its state is the truth again). */
  public void clear() {
    states.clear();
  }
}
