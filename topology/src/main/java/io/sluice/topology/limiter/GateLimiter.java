package io.sluice.topology.limiter;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The gate's view of the tenant buckets: serves an event from the tenant's current lease, or from
 * its places in the bucket's waiting line, when it can; otherwise makes one blocking call to the
 * store for the event's units plus a lease (or, if the event is queued, places in line) sized to
 * the tenant's demand at this instance, giving back what is left of the previous ones in the same
 * call. See {@link Lease} for why leases stay exact, {@link LinePlaces} for the over-limit cache,
 * and {@link DemandEstimate} for the sizing.
 *
 * <p>One instance per stream task: a task's events arrive on one thread, so nothing here is
 * synchronised except the shared {@link RedisCircuit}. Keys are tenant-partitioned, so a tenant's
 * lease and demand live in the one task that sees its events.
 */
public final class GateLimiter {
  /** The most buckets whose lease and demand one task remembers (least recently used go first). */
  static final int MAX_REMEMBERED = 50_000;

  /*
   * A lease is sized for leaseTarget of the tenant's demand. Its units may be handed out for twice
   * that (demand wobbles), and the bucket holds it for three times that: the third leaves the
   * holder time to release the unused units with its next request (a tenant busy enough to get a
   * lease sends one within about leaseTarget), and keeps the end of use well clear of the end of
   * the hold whatever the round trip.
   */
  static final long USE_FACTOR = 2;
  static final long HOLD_FACTOR = 3;

  /** Told of every round trip to the store, with its duration. */
  public interface StoreCallListener {
    void called(BucketKey key, long nanos);
  }

  private final TokenBucketStore store;
  private final RedisCircuit circuit;
  private final StoreCallListener onStoreCall;
  private final LongSupplier nanoTime;
  private final long timeoutNanos;
  private final double leaseTargetSeconds;
  private final int maxLease;
  private final long useMicros;
  private final long holdMicros;
  private final Map<BucketKey, Remembered> buckets =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BucketKey, Remembered> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  private static final class Remembered {
    final DemandEstimate demand = new DemandEstimate();
    Lease lease;
    LinePlaces places;
    /** The bucket after Redis's last answer; null before the first. */
    KnownLevel known;
    /** Units the local fallback charged while Redis was down, not yet charged in Redis. */
    int owed;
  }

  public GateLimiter(
      TokenBucketStore store,
      RedisCircuit circuit,
      LongSupplier nanoTime,
      Duration timeout,
      Duration leaseTarget,
      int maxLease,
      StoreCallListener onStoreCall) {
    this.store = store;
    this.onStoreCall = onStoreCall;
    this.circuit = circuit;
    this.nanoTime = nanoTime;
    this.timeoutNanos = timeout.toNanos();
    this.leaseTargetSeconds = leaseTarget.toNanos() / 1e9;
    this.maxLease = maxLease;
    long target = Math.max(1, leaseTarget.toNanos() / 1000);
    this.useMicros = USE_FACTOR * target;
    this.holdMicros = HOLD_FACTOR * target;
  }

  /**
   * Decides one event of {@code cost} units against its bucket.
   *
   * @param holder the event comes back holding a ticket (header sluice-ticket)
   */
  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, boolean holder) {
    return decide(key, spec, cost, holder, false);
  }

  /**
   * Decides one event of {@code cost} units against its bucket, in shadow mode if {@code shadow}.
   *
   * <p>Shadow mode: the caller admits the event whatever the answer, so nothing may be lent
   * ahead. The store charges only units the bucket holds now ({@link AcquireRequest#shadowing}),
   * so a lease holds only units due at once and never a reserved one, and no places in line are
   * ever taken; an event the bucket cannot pay now is {@link LimiterDecision.WouldDefer}. A ticket
   * (an event queued before shadow mode was switched on) changes nothing: shadow events are never
   * charged into debt.
   */
  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, boolean holder, boolean shadow) {
    Remembered r = buckets.computeIfAbsent(key, k -> new Remembered());
    long now = nanoTime.getAsLong();
    r.demand.record(cost, now);
    if (shadow) {
      holder = false;
    }

    // A ticket holder must be charged by Redis (its turn in the line is recorded there).
    if (!holder && r.lease != null) {
      Lease.Slot slot = r.lease.take(cost, now);
      if (slot != null) {
        return toDecision(slot);
      }
    }
    if (!holder && !shadow && r.places != null) {
      long turn = r.places.take(cost, now);
      if (turn >= 0) {
        return new LimiterDecision.Queued(LimiterDecision.ceilMillis(turn));
      }
    }

    java.util.Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return new LimiterDecision.Unavailable("circuit open after a Redis failure");
    }
    AcquireRequest request;
    if (holder) {
      // A holder's charge leaves the lease or places in hand as they are: they stay good.
      request = AcquireRequest.holding(cost);
    } else {
      int extra = r.demand.extraUnits(leaseTargetSeconds, maxLease);
      request = shadow
          ? AcquireRequest.shadowing(cost + extra, cost, holdMicros)
          : AcquireRequest.leasing(cost + extra, cost, holdMicros);
      // What is in hand is done with: this request gives its unused units or places back.
      if (r.lease != null) {
        request = request.releasing(r.lease.release(now));
        r.lease = null;
      }
      if (r.places != null) {
        // (A shadow bucket never has places; were there any, they stay as a gap: stricter.)
        if (!shadow) {
          request = request.givingBack(r.places.giveBack());
        }
        r.places = null;
      }
    }
    Acquisition acquisition;
    long sent = nanoTime.getAsLong();
    try {
      if (r.owed > 0) {
        // What the local fallback admitted while Redis was down is charged first, as a ticket
        // holder's units (no horizon check): Redis's ledger then holds every unit admitted, and
        // a bucket that refilled unseen during the outage does not pay its refill out twice.
        store.acquire(key, spec, AcquireRequest.holding(r.owed)).toCompletableFuture()
            .get(timeoutNanos, TimeUnit.NANOSECONDS);
        r.owed = 0;
      }
      CompletableFuture<Acquisition> f = store.acquire(key, spec, request).toCompletableFuture();
      acquisition = f.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      permit.get().failed(e);
      return new LimiterDecision.Unavailable("interrupted");
    } catch (Exception e) {
      permit.get().failed(e);
      return new LimiterDecision.Unavailable(describe(e));
    }
    long received = nanoTime.getAsLong();
    permit.get().succeeded();
    onStoreCall.called(key, received - sent);
    r.known = new KnownLevel(acquisition.levelBefore() - acquisition.granted(), received);

    if (!acquisition.isGranted() && shadow) {
      return new LimiterDecision.WouldDefer(
          LimiterDecision.ceilMillis(acquisition.nowMicros() + acquisition.ticketMicros()));
    }
    if (!acquisition.isGranted()) {
      if (request.want() > cost) {
        r.places = new LinePlaces(spec, acquisition, cost, request.want(), useMicros, sent, received);
      }
      return new LimiterDecision.Queued(
          LimiterDecision.ceilMillis(acquisition.nowMicros() + acquisition.ticketMicros()));
    }
    Lease lease = new Lease(spec, acquisition, cost, useMicros, sent, received);
    Lease.Slot slot = lease.takeAtGrant();
    if (!holder) {
      r.lease = lease.remaining() > 0 ? lease : null;
    }
    return toDecision(slot);
  }

  /**
   * The bucket as Redis last left it, for the {@code local} fallback to start from; null when
   * this task never heard of it (the fallback then starts it full, at its share).
   */
  public KnownLevel known(BucketKey key) {
    Remembered r = buckets.get(key);
    return r == null ? null : r.known;
  }

  /**
   * Records {@code units} that the local fallback charged to the bucket while Redis was down;
   * the next call to Redis for it charges them there first.
   */
  public void owe(BucketKey key, int units) {
    buckets.computeIfAbsent(key, k -> new Remembered()).owed += units;
  }

  private static LimiterDecision toDecision(Lease.Slot slot) {
    if (slot.isImmediate()) {
      return new LimiterDecision.Admit(slot.decidedMicros() / 1000);
    }
    return new LimiterDecision.Reserved(LimiterDecision.ceilMillis(slot.dueMicros()));
  }

  private static String describe(Exception e) {
    Throwable t = e.getCause() != null ? e.getCause() : e;
    String name = e instanceof java.util.concurrent.TimeoutException ? "timed out" : t.getClass().getSimpleName();
    return t.getMessage() == null ? name : name + ": " + t.getMessage();
  }
}
