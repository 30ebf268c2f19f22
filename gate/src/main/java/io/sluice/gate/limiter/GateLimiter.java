package io.sluice.gate.limiter;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate's view of the tenant buckets: serves an event from the tenant's current lease, or from
 * its places in the bucket's waiting line, when it can; otherwise makes one call to the store for
 * the event's units plus a lease (or, if the event is queued, places in line) sized to the
 * tenant's demand at this instance, giving back what is left of the previous ones in the same
 * call. {@link #decide} waits for that call; the gate itself uses {@link #begin}, {@link #send}
 * and {@link #finish}, so that the calls of many events go out together and the stream thread
 * waits for none of them alone (the gate's {@code PendingEvents}). See {@link Lease} for why leases stay exact, {@link LinePlaces} for the over-limit cache,
 * and {@link DemandEstimate} for the sizing.
 *
 * <h2>Renewals: the stream thread waits only for a tenant it does not know, or a lease run dry</h2>
 *
 * A blocking call costs the stream thread a round trip, and at a few hundred microseconds that is
 * more than the rest of an event's work. So while a busy tenant's lease still serves, a renewal
 * is asked for without waiting ({@link RenewalPolicy} says when: about halfway through the lease),
 * and when the lease is spent the renewal's answer, usually long there, becomes the lease. The
 * renewal carries the release of the lease before the current one, so each lease is still given
 * back with the next request. A renewal is exact for the same reasons a lease is, and takes only
 * units the bucket holds at once ({@link AcquireRequest#renewal}): it never reserves ahead and
 * never queues, so it is asked for only while the tenant's events go at once (a tenant beyond its
 * rate is served by leases of reservations and places in line, from blocking calls, as before),
 * and one that comes back empty leaves the next event to ask the bucket itself. At most one
 * renewal per bucket is out at a time.
 *
 * <p>One instance per stream task: a task's events arrive on one thread, so nothing here is
 * synchronised except the shared {@link RedisCircuit}. Keys are tenant-partitioned, so a tenant's
 * lease and demand live in the one task that sees its events.
 */
public final class GateLimiter {
  private static final Logger LOG = LoggerFactory.getLogger(GateLimiter.class);
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

  /** Told of every round trip to the store (a batch is one), with its duration. */
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
  private final RenewalPolicy renewalPolicy;
  /**
   * Buckets beyond {@link #MAX_REMEMBERED} are forgotten least recently used first, but one that
   * owes Redis units the local fallback admitted is kept, up to twice that many buckets; only
   * beyond that is its debt dropped, and counted ({@link #owedDropped}). So what a task owes is
   * bounded (at most {@code 2 * MAX_REMEMBERED} buckets) and never lost without a trace.
   */
  private final Map<BucketKey, Remembered> buckets =
      new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BucketKey, Remembered> eldest) {
          if (size() <= MAX_REMEMBERED) {
            return false;
          }
          if (eldest.getValue().owed > 0) {
            if (size() <= 2 * MAX_REMEMBERED) {
              return false;
            }
            if (owedDropped.sum() == 0) {
              LOG.warn("more than {} buckets owe Redis units the local fallback admitted; the "
                  + "least recently used debts are dropped (counted in owedDropped)",
                  2 * MAX_REMEMBERED);
            }
            owedDropped.add(eldest.getValue().owed);
          }
          return true;
        }
      };
  private final LongAdder owedDropped = new LongAdder();

  private static final class Remembered {
    final DemandEstimate demand = new DemandEstimate();
    Lease lease;
    LinePlaces places;
    /** The bucket after Redis's last answer; null before the first. */
    KnownLevel known;
    /** Units the local fallback charged while Redis was down, not yet charged in Redis. */
    int owed;
    /** A renewal asked for while {@link #lease} served: in flight or answered; null when none. */
    Renewal renewal;
    /** A lease that a renewal took over from, to be released with the next request. */
    Lease retired;
    /** A call for an event of this bucket is out ({@link Pending}): the next waits for it. */
    boolean inFlight;
  }

  /** A renewal's answer, with the local time it arrived (on the thread that completed it). */
  private record Answer(Acquisition acquisition, long receivedNanos) {}

  private record Renewal(CompletableFuture<Answer> answer, long sentNanos) {}

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
    this.renewalPolicy = RenewalPolicy.forLeaseTarget(target);
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
    Pending p = begin(key, spec, cost, holder, shadow);
    if (p.decided() != null) {
      return p.decided();
    }
    Acquisition acquisition;
    try {
      acquisition = store.acquire(key, spec, p.call().request()).toCompletableFuture()
          .get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (Exception e) {
      return fail(p, e);
    }
    onStoreCall.called(key, nanoTime.getAsLong() - p.sentNanos);
    return finish(p, acquisition);
  }

  /**
   * An event's decision as far as this task can take it without waiting: {@link #decided()}
   * when its lease, places or the circuit settled it; else the store {@link #call()} that
   * settles it ({@link #finish} with the answer, {@link #fail} without one); or {@link #busy()}
   * when its bucket has a call out already (begin it again once that one is finished: the
   * bucket's lease and places come from that answer).
   */
  public static final class Pending {
    private static final Pending BUSY = new Pending(null, null, null, false, false, null, 0);
    private final LimiterDecision decided;
    private final TokenBucketStore.BucketCall call;
    private final Remembered bucket;
    private final boolean holder;
    private final boolean shadow;
    private final RedisCircuit.Permit permit;
    private final long sentNanos;

    private Pending(LimiterDecision decided, TokenBucketStore.BucketCall call, Remembered bucket,
        boolean holder, boolean shadow, RedisCircuit.Permit permit, long sentNanos) {
      this.decided = decided;
      this.call = call;
      this.bucket = bucket;
      this.holder = holder;
      this.shadow = shadow;
      this.permit = permit;
      this.sentNanos = sentNanos;
    }

    private static Pending of(LimiterDecision decided) {
      return new Pending(decided, null, null, false, false, null, 0);
    }

    public LimiterDecision decided() {
      return decided;
    }

    public TokenBucketStore.BucketCall call() {
      return call;
    }

    public boolean busy() {
      return this == BUSY;
    }

    /** When the call was made ready to send, on the limiter's clock (its timeout counts from it). */
    public long sentNanos() {
      return sentNanos;
    }
  }

  /** The first half of {@link #decide}: all of it that needs no answer from the store. */
  public Pending begin(BucketKey key, BucketSpec spec, int cost, boolean holder, boolean shadow) {
    Remembered r = buckets.computeIfAbsent(key, k -> new Remembered());
    if (r.inFlight) {
      return Pending.BUSY;
    }
    long now = nanoTime.getAsLong();
    r.demand.record(cost, now);
    if (shadow) {
      holder = false;
    }
    forgetWhatTheOldSpecSold(r, spec);

    // A ticket holder must be charged by Redis (its turn in the line is recorded there).
    if (!holder && r.lease != null) {
      Lease.Slot slot = r.lease.take(cost, now);
      if (slot != null) {
        renewIfDue(key, spec, r, cost, slot, now);
        return Pending.of(toDecision(slot));
      }
    }
    if (!holder && r.renewal != null) {
      // The lease is spent: the renewal takes over (waiting for its answer only if it is not in).
      Lease next = takeRenewal(spec, r);
      if (next != null) {
        r.retired = r.lease;
        r.lease = next;
        long at = nanoTime.getAsLong();
        Lease.Slot slot = next.take(cost, at);
        if (slot != null) {
          renewIfDue(key, spec, r, cost, slot, at);
          return Pending.of(toDecision(slot));
        }
      }
    }
    if (!holder && !shadow && r.places != null) {
      long turn = r.places.take(cost, now);
      if (turn >= 0) {
        return Pending.of(new LimiterDecision.Queued(LimiterDecision.ceilMillis(turn)));
      }
    }

    Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return Pending.of(new LimiterDecision.Unavailable("circuit open after a Redis failure"));
    }
    AcquireRequest request;
    if (holder) {
      // A holder's charge leaves the lease or places in hand as they are: they stay good.
      request = AcquireRequest.holding(cost, lostLeaseHold());
    } else {
      int extra = r.demand.extraUnits(leaseTargetSeconds, maxLease);
      request = shadow
          ? AcquireRequest.shadowing(cost + extra, cost, lostLeaseHold())
          : AcquireRequest.leasing(cost + extra, cost, lostLeaseHold());
      // What is in hand is done with: this request gives its unused units or places back. (One
      // lease per request: when a renewal has just taken over and cannot serve this event either,
      // the lease it took over from is not named and ends at its deadline: stricter, never looser.)
      if (r.lease != null) {
        request = request.releasing(r.lease.release(now));
        r.lease = null;
      } else if (r.retired != null) {
        request = request.releasing(r.retired.release(now));
      }
      r.retired = null;
      if (r.places != null) {
        // (A shadow bucket never has places; were there any, they stay as a gap: stricter.)
        if (!shadow) {
          request = request.givingBack(r.places.giveBack());
        }
        r.places = null;
      }
    }
    long sent = nanoTime.getAsLong();
    if (r.owed > 0) {
      // What the local fallback admitted while Redis was down is charged first, whatever the
      // level (AcquireRequest.owing): Redis's ledger then holds every unit admitted, and
      // a bucket that refilled unseen during the outage does not pay its refill out twice.
      // (Once per outage and bucket, so this one waits.)
      try {
        store.acquire(key, spec, AcquireRequest.owing(r.owed, lostLeaseHold())).toCompletableFuture()
            .get(timeoutNanos, TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        return Pending.of(fail(new Pending(null, null, r, holder, shadow, permit.get(), sent), e));
      }
      r.owed = 0;
    }
    r.inFlight = true;
    return new Pending(null, new TokenBucketStore.BucketCall(key, spec, request), r, holder, shadow,
        permit.get(), sent);
  }

  /**
   * The hold named on every call, leasing or not: a bucket Redis lost may have had its whole
   * capacity leased out to holders who spend it until their leases end, up to this long after the
   * loss, so the script rebuilds it no fuller than that allows (token_bucket.lua, "Lost data";
   * issue 34). Without leases (maxLease 0) nothing can be held: 0.
   */
  private long lostLeaseHold() {
    return maxLease > 0 ? holdMicros : 0;
  }

  /** The second half of {@link #decide}: the store's answer to {@code p}'s call. */
  public LimiterDecision finish(Pending p, Acquisition acquisition) {
    Remembered r = p.bucket;
    r.inFlight = false;
    long received = nanoTime.getAsLong();
    p.permit.succeeded();
    r.known = KnownLevel.after(acquisition, received);
    AcquireRequest request = p.call.request();
    int cost = request.need();

    if (!acquisition.isGranted() && p.shadow) {
      return new LimiterDecision.WouldDefer(
          LimiterDecision.ceilMillis(acquisition.nowMicros() + acquisition.ticketMicros()));
    }
    if (!acquisition.isGranted()) {
      if (request.want() > cost) {
        r.places = new LinePlaces(p.call.spec(), acquisition, cost, request.want(), useMicros, p.sentNanos, received);
      }
      return new LimiterDecision.Queued(
          LimiterDecision.ceilMillis(acquisition.nowMicros() + acquisition.ticketMicros()));
    }
    Lease lease = new Lease(p.call.spec(), acquisition, cost, useMicros, p.sentNanos, received);
    Lease.Slot slot = lease.takeAtGrant();
    if (!p.holder) {
      r.lease = lease.remaining() > 0 ? lease : null;
    }
    return toDecision(slot);
  }

  /** {@code p}'s call failed or was not answered in time: Redis is unavailable for its event. */
  public LimiterDecision fail(Pending p, Throwable e) {
    p.bucket.inFlight = false;
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      p.permit.failed(e);
      return new LimiterDecision.Unavailable("interrupted");
    }
    p.permit.failed(e);
    return new LimiterDecision.Unavailable(describe(e));
  }

  /**
   * Sends the calls of several {@link Pending}s together ({@link TokenBucketStore#acquireBatch}):
   * the answers in the same order, each for {@link #finish}.
   */
  public CompletableFuture<List<Acquisition>> send(List<Pending> calls) {
    List<TokenBucketStore.BucketCall> batch = new ArrayList<>(calls.size());
    calls.forEach(p -> batch.add(p.call));
    long sent = nanoTime.getAsLong();
    CompletableFuture<List<Acquisition>> answers;
    try {
      answers = store.acquireBatch(batch).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    // One round trip for the batch, told on the thread that completes it.
    answers.thenRun(() -> onStoreCall.called(batch.get(0).key(), nanoTime.getAsLong() - sent));
    return answers;
  }

  /** How long a call may take, from {@link Pending#sentNanos()}. */
  public long timeoutNanos() {
    return timeoutNanos;
  }

  /** The limiter's clock. */
  public long nanoTime() {
    return nanoTime.getAsLong();
  }

  /**
   * The bucket as Redis last left it, for the {@code local} fallback to start from; null when
   * this task never heard of it (the fallback then starts it full, at its share).
   */
  public KnownLevel known(BucketKey key) {
    Remembered r = buckets.get(key);
    if (r == null) {
      return null;
    }
    if (r.renewal != null && r.renewal.answer().isDone() && !r.renewal.answer().isCompletedExceptionally()) {
      note(r, r.renewal.answer().join());
    }
    return r.known;
  }

  /**
   * The units this task's leases of the bucket hold against its cap in Redis (the lease in use,
   * the one a renewal took over from, a renewal answered and not yet taken), and how long the
   * longest of them is kept there: while they are, Redis refills the bucket only up to capacity
   * minus these, and the {@code local} fallback must do the same ({@link LocalBuckets}).
   */
  public HeldUnits held(BucketKey key) {
    Remembered r = buckets.get(key);
    if (r == null) {
      return HeldUnits.NONE;
    }
    long now = nanoTime.getAsLong();
    int units = 0;
    long longest = 0;
    for (Lease l : new Lease[] {r.lease, r.retired}) {
      if (l != null) {
        units += l.heldUnits();
        longest = Math.max(longest, l.heldForMicros(now));
      }
    }
    if (r.renewal != null && r.renewal.answer().isDone()
        && !r.renewal.answer().isCompletedExceptionally()) {
      Acquisition a = r.renewal.answer().join().acquisition();
      if (a.leaseId() != 0) {
        units += a.granted();
        longest = Math.max(longest, holdMicros);
      }
    }
    return new HeldUnits(units, longest);
  }

  /**
   * Units the local fallback admitted that this task forgot before Redis could be charged them
   * (more than {@code 2 * MAX_REMEMBERED} buckets remembered): each is one unit Redis never saw.
   */
  public long owedDropped() {
    return owedDropped.sum();
  }

  /** Units held by leases against a bucket's cap, and for how long at most ({@link #held}). */
  public record HeldUnits(int units, long forMicros) {
    public static final HeldUnits NONE = new HeldUnits(0, 0);
  }

  /**
   * Records {@code units} that the local fallback charged to the bucket while Redis was down;
   * the next call to Redis for it charges them there first.
   */
  public void owe(BucketKey key, int units) {
    buckets.computeIfAbsent(key, k -> new Remembered()).owed += units;
  }

  /**
   * Asks for the next lease without waiting, if the tenant's events go at once and its lease is
   * expected to end soon ({@link RenewalPolicy}). The answer is picked up by the event that finds
   * the lease spent ({@link #takeRenewal}); the circuit and the store-call listener are told when it
   * arrives, on the thread that completes it.
   */
  /**
   * A lease, its renewal and places in line were sold under the spec they were granted with.
   * After a change of the tenant's quota (a reload, the tenant registry), deciding from them
   * would keep the old rate until they ran out, seconds of a lease: the next event goes to the
   * script instead, which applies the change ({@code token_bucket.lua}, "A change of rate"). The
   * lease is released with that call ({@link Remembered#retired}; after a change Redis takes
   * back none of its reserved units); a renewal in flight is left to expire. Stricter, never
   * looser: what they held is not sold twice.
   */
  private static void forgetWhatTheOldSpecSold(Remembered r, BucketSpec spec) {
    if (r.lease != null && !r.lease.spec().equals(spec)) {
      r.retired = r.lease;
      r.lease = null;
      r.renewal = null;
    }
    if (r.places != null && !r.places.spec().equals(spec)) {
      r.places = null;
    }
  }

  private void renewIfDue(BucketKey key, BucketSpec spec, Remembered r, int cost, Lease.Slot slot, long now) {
    if (maxLease == 0 || r.renewal != null || r.owed > 0 || !slot.isImmediate()
        || !renewalPolicy.shouldRenew(r.lease.remaining(), r.lease.useLeftMicros(now), r.demand.perSecond())) {
      return;
    }
    // The next event's units (this one's cost stands in for them) and the demand expected within
    // the lease target, measured since the tenant's first event: a renewal charges only units the
    // bucket holds, so a tenant just seen may take a full lease on its second or third event
    // instead of growing one by a unit or two per call (DemandEstimate).
    int want = cost + r.demand.extraUnitsSinceFirstSeen(leaseTargetSeconds, maxLease);
    Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return;
    }
    AcquireRequest request = AcquireRequest.renewal(want, holdMicros);
    if (r.retired != null) {
      request = request.releasing(r.retired.release(now));
      r.retired = null;
    }
    long sent = nanoTime.getAsLong();
    CompletableFuture<Answer> answer;
    try {
      answer = store.acquire(key, spec, request).toCompletableFuture()
          .thenApply(a -> new Answer(a, nanoTime.getAsLong()));
    } catch (RuntimeException e) {
      permit.get().failed(e);
      return;
    }
    answer.whenComplete((a, e) -> {
      if (e != null) {
        permit.get().failed(e);
      } else {
        permit.get().succeeded();
        onStoreCall.called(key, a.receivedNanos() - sent);
      }
    });
    r.renewal = new Renewal(answer, sent);
  }

  /**
   * The renewal's lease, waiting for its answer for what is left of the timeout; null when it
   * failed, timed out or came back empty (the event then asks the bucket itself).
   */
  private Lease takeRenewal(BucketSpec spec, Remembered r) {
    Renewal renewal = r.renewal;
    r.renewal = null;
    Answer answer;
    try {
      long left = timeoutNanos - (nanoTime.getAsLong() - renewal.sentNanos());
      answer = renewal.answer().getNow(null);
      if (answer == null) {
        answer = renewal.answer().get(Math.max(0, left), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      // Failed: the circuit was told when it completed. Not answered in time: it is told here
      // (the first report of a permit counts, so a late answer changes nothing).
      if (e instanceof TimeoutException) {
        renewal.answer().completeExceptionally(e);
      }
      return null;
    }
    note(r, answer);
    Acquisition a = answer.acquisition();
    if (!a.isGranted()) {
      return null;
    }
    return new Lease(spec, a, 0, useMicros, renewal.sentNanos(), answer.receivedNanos());
  }

  /** A renewal's answer is Redis's latest word on the bucket, for the local fallback too. */
  private static void note(Remembered r, Answer answer) {
    if (r.known == null || answer.receivedNanos() > r.known.atNanos()) {
      Acquisition a = answer.acquisition();
      r.known = KnownLevel.after(a, answer.receivedNanos());
    }
  }

  private static LimiterDecision toDecision(Lease.Slot slot) {
    if (slot.isImmediate()) {
      return new LimiterDecision.Admit(slot.decidedMicros() / 1000);
    }
    return new LimiterDecision.Reserved(LimiterDecision.ceilMillis(slot.dueMicros()));
  }

  private static String describe(Throwable e) {
    Throwable t = e.getCause() != null ? e.getCause() : e;
    String name = e instanceof TimeoutException ? "timed out" : t.getClass().getSimpleName();
    return t.getMessage() == null ? name : name + ": " + t.getMessage();
  }
}
