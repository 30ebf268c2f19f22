package io.sluice.gate.limiter;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The {@code local} answer to a Redis outage: the same bucket math ({@link TokenBucketMath}) run
 * in-process on the local clock, each bucket at this instance's share of the quota (capacity and
 * refill times {@code 1 / gate instances}), so that N instances together stay near the quota
 * without talking to each other.
 *
 * <p>Where it starts: from the level Redis gave in its last answer for the bucket ({@link
 * KnownLevel}), refilled since and scaled to the share. That level is negative while units are
 * reserved ahead, so the time Redis already sold (the relay releases those reservations when they
 * fall due, outage or not) is not sold again. A bucket this task never heard of (the gate
 * restarted or the partition moved during the outage) starts as the deepest Redis may hold it:
 * a full reach of reservations ({@link TokenBucketMath#reachMicros}), as a bucket rebuilt after a
 * loss does, so it never sells time its predecessor's reservations still hold; it reserves again
 * once it has refilled to within the horizon. What it charges is owed to Redis
 * ({@link GateLimiter#owe}) and paid there on the bucket's first call once Redis answers again.
 * A bucket is started afresh whenever Redis has answered for it since (its {@code KnownLevel}
 * changed), so one outage's local state never leaks into the next.
 *
 * <p>One instance per stream task, like {@link GateLimiter}; not thread-safe.
 */
public final class LocalBuckets {
  private final DoubleSupplier share;
  private final LongSupplier nanoTime;
  private final Map<BucketKey, Local> states =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BucketKey, Local> eldest) {
          return size() > GateLimiter.MAX_REMEMBERED;
        }
      };

  /** A local bucket and the Redis answer it was started from (null: none, it started deepest). */
  private record Local(BucketState state, KnownLevel startedFrom) {}

  /**
   * @param share    this instance's fraction of every quota, in (0, 1]
   * @param nanoTime the monotonic clock {@link KnownLevel#atNanos()} is read on
   */
  public LocalBuckets(DoubleSupplier share, LongSupplier nanoTime) {
    this.share = share;
    this.nanoTime = nanoTime;
  }

  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, long nowMillis) {
    return decide(key, spec, cost, nowMillis, false, null);
  }

  /**
   * Decides one event on the local bucket; in shadow mode only what the local bucket holds now is
   * charged (see GateLimiter). Like Redis, it reserves only within the reservation horizon; an
   * event beyond it is {@link LimiterDecision.Unavailable} (not charged: held back as under
   * {@code fail_closed}).
   *
   * @param known Redis's last answer for the bucket, or null if this task never had one
   */
  public LimiterDecision decide(
      BucketKey key, BucketSpec spec, int cost, long nowMillis, boolean shadow, KnownLevel known) {
    return decide(key, spec, cost, nowMillis, shadow, known, GateLimiter.HeldUnits.NONE);
  }

  /**
   * As above, with the units this task's leases still hold against the bucket's cap in Redis
   * ({@link GateLimiter#held}): the events they serve need no call to Redis and go on while it
   * is down, so the local bucket starts at most at capacity minus them and refills no higher
   * while Redis would keep them, as Redis would (see {@link Lease}).
   */
  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, long nowMillis,
      boolean shadow, KnownLevel known, GateLimiter.HeldUnits held) {
    double fraction = Math.min(1, Math.max(1e-6, share.getAsDouble()));
    BucketSpec mine = spec.share(fraction);
    long nowMicros = nowMillis * 1000;
    Local local = states.get(key);
    BucketState state = local == null ? null : local.state();
    if (known == null && local == null) {
      // Never heard of from Redis (this gate started, or took the partition, during the outage):
      // Redis may hold it at its deepest, a full reach of reservations still waiting in the ladder
      // for their turns, so it starts there, as a bucket rebuilt after a loss does. Started full,
      // it sold a second line of reservations beside its predecessor's (a chaos run: a gate
      // restarted as Redis went down admitted 4 at once, then charged every 0.667 s beside the
      // old line, twice the rate for 8 s). Kept from now on, so it refills from here.
      double deepest = -TokenBucketMath.reachMicros(mine) * mine.refillPerSecond() / 1_000_000;
      state = new BucketState(deepest, nowMicros, 0, 0, List.of());
      states.put(key, new Local(state, null));
    } else if (known != null && (local == null || !Objects.equals(local.startedFrom(), known))) {
      // Redis's level scaled to the share: a debt of D units (D/refill seconds of sold time) is
      // D*fraction units at the local refill, the same time.
      double level = Math.min(spec.capacity() - held.units(), known.at(nanoTime.getAsLong(), spec));
      int heldHere = (int) Math.ceil(held.units() * fraction);
      List<BucketState.HeldLease> leases = heldHere == 0 || held.forMicros() == 0 ? List.of()
          : List.of(new BucketState.HeldLease(0, nowMicros + held.forMicros(), heldHere, heldHere,
              nowMicros, heldHere));
      // An old line (reservations sold before a raise, Refill) runs on at the share's part of its
      // rate, and the local bucket refills beside it, as Redis's does.
      long oldLeft = known.oldLeftNanos(nanoTime.getAsLong()) / 1000;
      state = new BucketState(level * fraction, nowMicros, 0, 0, leases, mine.refillPerSecond(), 0, 0,
          oldLeft > 0 ? known.oldRate() * fraction : 0, oldLeft > 0 ? nowMicros + oldLeft : 0);
    }
    AcquireRequest request = shadow ? AcquireRequest.shadowing(cost, cost, 0) : AcquireRequest.single(cost);
    TokenBucketMath.Step step = TokenBucketMath.acquire(state, mine, request, nowMicros);
    Acquisition a = step.acquisition();
    if (shadow && !a.isGranted()) {
      states.put(key, new Local(step.next(), known));
      return new LimiterDecision.WouldDefer(LimiterDecision.ceilMillis(a.nowMicros() + a.ticketMicros()));
    }
    if (!a.isGranted()) {
      // Beyond the reservation horizon (a ticket holder too): not charged, and no line kept (the
      // state stays as it was). Redis sells nothing beyond the horizon but a returning holder's
      // units (within the holders' reach), and a bucket Redis lost is rebuilt as a full reach of
      // reservations at the loss;
      // time sold locally further ahead could be sold again by Redis after the loss, or after a
      // gate restart that loses what this task owes. The event waits as under fail_closed.
      return new LimiterDecision.Unavailable("beyond the reservation horizon while Redis is away");
    }
    states.put(key, new Local(step.next(), known));
    long due = a.dueOfUnit(cost, mine);
    if (due <= nowMicros) {
      return new LimiterDecision.Admit(nowMillis);
    }
    return new LimiterDecision.Reserved(LimiterDecision.ceilMillis(due));
  }
}
