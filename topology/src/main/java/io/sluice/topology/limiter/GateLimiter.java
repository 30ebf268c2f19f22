package io.sluice.topology.limiter;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The gate's view of the tenant buckets: serves an event from the tenant's current lease when it
 * can, and otherwise makes one blocking call to the store for the event's units plus a lease sized
 * to the tenant's demand at this instance (see {@link Lease} for why that stays exact, and
 * {@link DemandEstimate} for the sizing).
 *
 * <p>One instance per stream task: a task's events arrive on one thread, so nothing here is
 * synchronised except the shared {@link RedisCircuit}. Keys are tenant-partitioned, so a tenant's
 * lease and demand live in the one task that sees its events.
 */
public final class GateLimiter {
  /** The most buckets whose lease and demand one task remembers (least recently used go first). */
  static final int MAX_REMEMBERED = 50_000;

  /** Told of every round trip to the store, with its duration. */
  public interface StoreCallListener {
    void called(BucketKey key, long nanos);
  }

  private final TokenBucketStore store;
  private final RedisCircuit circuit;
  private final StoreCallListener onStoreCall;
  private final LongSupplier nanoTime;
  private final LongSupplier wallMillis;
  private final long timeoutNanos;
  private final double leaseTargetSeconds;
  private final int maxLease;
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
  }

  public GateLimiter(
      TokenBucketStore store,
      RedisCircuit circuit,
      LongSupplier nanoTime,
      LongSupplier wallMillis,
      Duration timeout,
      Duration leaseTarget,
      int maxLease,
      StoreCallListener onStoreCall) {
    this.store = store;
    this.onStoreCall = onStoreCall;
    this.circuit = circuit;
    this.nanoTime = nanoTime;
    this.wallMillis = wallMillis;
    this.timeoutNanos = timeout.toNanos();
    this.leaseTargetSeconds = leaseTarget.toNanos() / 1e9;
    this.maxLease = maxLease;
  }

  /**
   * Decides one event of {@code cost} units against its bucket.
   *
   * @param holder the event comes back holding a ticket (header sluice-ticket)
   */
  public LimiterDecision decide(BucketKey key, BucketSpec spec, int cost, boolean holder) {
    Remembered r = buckets.computeIfAbsent(key, k -> new Remembered());
    long now = nanoTime.getAsLong();
    r.demand.record(cost, now);

    // A ticket holder must be charged by Redis (its turn in the line is recorded there).
    if (!holder && r.lease != null) {
      Lease.Slot slot = r.lease.take(cost, now);
      if (slot != null) {
        return toDecision(slot);
      }
      r.lease = null;
    }

    if (!circuit.allow(wallMillis.getAsLong())) {
      return new LimiterDecision.Unavailable("circuit open after a Redis failure");
    }
    int want = holder ? cost : cost + r.demand.extraUnits(leaseTargetSeconds, maxLease);
    Acquisition acquisition;
    long sent = nanoTime.getAsLong();
    try {
      CompletableFuture<Acquisition> f =
          store.acquire(key, spec, new AcquireRequest(want, cost, holder)).toCompletableFuture();
      acquisition = f.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      circuit.onFailure(wallMillis.getAsLong());
      return new LimiterDecision.Unavailable("interrupted");
    } catch (Exception e) {
      circuit.onFailure(wallMillis.getAsLong());
      return new LimiterDecision.Unavailable(describe(e));
    }
    long received = nanoTime.getAsLong();
    circuit.onSuccess();
    onStoreCall.called(key, received - sent);

    if (!acquisition.isGranted()) {
      return new LimiterDecision.Queued(
          LimiterDecision.ceilMillis(acquisition.nowMicros() + acquisition.ticketMicros()));
    }
    Lease lease = new Lease(spec, acquisition, sent, received);
    Lease.Slot slot = lease.takeAtGrant(cost);
    r.lease = lease.remaining() > 0 ? lease : null;
    return toDecision(slot);
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
