package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.fair.FairQueue;
import io.sluice.dispatcher.fair.GlobalShare;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.PayloadBytes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One provider's side of the dispatcher: its bounded fair queue, its share of the global leak, and
 * its calls in flight. Lanes share nothing with each other, which is why a slow provider cannot
 * hold up a fast one: a lane whose calls hang fills its own {@code maxInFlight} and its own buffer,
 * and the overflow is deferred through the ladder instead of blocking the consumer.
 *
 * <h2>How a call gets its slot</h2>
 *
 * The leak is a schedule of slots {@code 1/rate} apart held in Redis and shared by every instance
 * ({@link LeakyBucket}). A lane claims slots only while it has work for them and room in flight:
 * {@code wanted = min(queued - pending, maxInFlight - inFlight - pending)}, where {@code pending}
 * counts slots claimed and not yet fired. A claim returns slots no further than the lookahead
 * ahead, on the leak's clock, together with that clock's reading. {@link SlotPacer} turns a slot
 * into a local instant (never early, late by the shortest return delay of recent claims), holds
 * every hand-off to the HTTP client at least three quarters of an interval after this lane's
 * previous one, and drops a slot that could only be used more than half an interval late.
 *
 * <p><b>At the dispatcher's pace.</b> Every claim asks the leak for slots at the rate times the
 * dispatcher's {@link Pace} factor, below 1 while the process cannot keep its slots on time
 * ({@link PaceGovernor}); each slot's timer task reports how late it ran. Slower claims only space
 * this lane's slots further apart: the leak never grants two closer than the rate allows.
 *
 * <p><b>The first call goes alone.</b> Until a lane's first call has come back, it claims one slot
 * at a time and keeps one call in flight. A cold HTTP client takes tens of milliseconds to load
 * its classes, connect and send its first request; calls handed to it meanwhile, each on time,
 * would leave together when it is ready (three calls within 3 ms were seen at a strict provider
 * right after start). One call alone warms it, at the cost of one call's latency, once.
 *
 * <p>Which event goes is decided when the slot fires, not when it was claimed: the fair queue sees
 * every event that arrived meanwhile. A slot that fires with nothing to send (the queue was drained
 * by a revocation) or while the provider asked us to wait is wasted, never saved: a leaky bucket
 * does not bank unused slots.
 *
 * <h2>Fair across instances</h2>
 *
 * The fair queue shares out only the slots this lane claims, among the tenants this instance
 * holds. So that a tier's tenants get the same whichever instance holds them, the lane tells the
 * others sharing the provider, every {@value #SHARE_EVERY_MILLIS} ms while it has work, how many
 * busy tenants of each tier it holds, and hears the sums ({@link LeakyBucket#busyTenants}). From
 * them {@link GlobalShare} gives its part of the leak and the weights its queue uses, and
 * {@link ClaimAllowance} keeps its claims to that part (plus 2%) while the others are busy. The
 * leak itself is untouched: the share only ever makes a lane claim fewer slots, never more, and
 * a lane that hears nothing for a second claims as if it were alone. A provider with limits beyond
 * the rate (windows, concurrency) is neither capped nor published: its pace is not the rate the share divides.
 *
 * <h2>Limits beyond the rate</h2>
 *
 * A provider may publish more than a rate: calls and cost per window, and concurrency. The lane
 * asks its {@link LimitSource} for the limits on every claim (configured ones, or lower ones
 * learned from the provider) and claims against all of them at once ({@link LimitedClaim}). The
 * event for a slot is picked only when the slot fires, so each slot reserves the DEAREST cost
 * queued at the claim; when it fires, the event the queue picks goes only if it costs no more
 * than that (a dearer one, queued meanwhile, stays queued and the slot is wasted), and a cheaper
 * one gives the difference back ({@link LeakyBucket#settle}) before its call starts: every cost
 * window always holds at least the cost the provider was sent, so it never sees more than its
 * allowance. With a concurrency limit each slot holds a lease, released when its call ends or when
 * the slot goes unused, and the lane claims again once the leak has it back; a lease this instance never releases (it died) expires
 * {@code leaseMicros} after its slot.
 *
 * <h2>Decisions and the shell</h2>
 *
 * What to do at each step (when to claim and how many, what a due slot does, the pause, the
 * warm-up, which queued entries no longer fit) is decided by {@link LaneSchedule}, which is pure
 * and tested on a fake clock; this class holds the queue, talks to the leak and the provider, and
 * runs the timers. Every instant comes from the injected {@code nanoTime}.
 *
 * <p>Thread-safety: the consumer thread offers and removes, the timer thread fires slots, and the
 * leak's and the provider's completions arrive on their own threads; every state change happens
 * under this lane's monitor, and no I/O is started while holding it.
 */
public final class ProviderLane implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderLane.class);

  /** What becomes of a call's result: it is judged into a {@link Settlement}. */
  public interface ResultHandler {
    /**
     * @param claimedAtMicros when the leak granted this call's slot, on the leak's clock: a 429 to
     *                        a call whose slot was granted before the last rate cut does not cut
     *                        again (it was spaced at the old rate)
     */
    Settlement settle(LaneId lane, DispatchEntry entry, ProviderResult result, long claimedAtMicros);
  }

  private final LaneId id;
  /** {@link #id}'s name: the key of the lane's leak, learned limits and throttle. */
  private final String name;
  private final BiConsumer<DispatchEntry, String> cannotFit;
  private final LimitSource limits;
  /** How long a concurrency lease outlives its slot if never released: the call's timeout and some. */
  private final long leaseMicros;
  /** Names this lane's leases: unique per lane instance, process and claim. */
  private final String leasePrefix = UUID.randomUUID().toString();
  private long claims;
  private final long lookaheadMicros;
  private final FairQueue<DispatchEntry> queue;
  private final Provider provider;
  private final LeakyBucket leak;
  private final ScheduledExecutorService timer;
  private final ResultHandler results;
  private final DispatchListener listener;
  /** The dispatcher's pace: the share of the rate each claim takes ({@link PaceGovernor}). */
  private final Pace pace;
  /**
   * Every decision: when to claim and how many, what a due slot does, the pause, the warm-up, the
   * drain estimate. This class carries them out.
   */
  private final LaneSchedule schedule;
  /**
   * Calls per partition that have not yet been handed to the result handler: a call counts here
   * until its settlement has begun, so a revoked partition can wait for its calls to be judged.
   */
  private final Map<TopicPartition, Integer> unjudged = new HashMap<>();
  /** Monotonic nanoseconds ({@code System::nanoTime} in production): every instant of this lane. */
  private final LongSupplier nanoTime;
  /** The configured tier weights (a reload changes them). */
  private Map<String, Double> configuredWeights;
  /** The weights the fair queue uses now: the configured ones, or this instance's {@link GlobalShare}. */
  private Map<String, Double> appliedWeights;
  /**
   * Whether a call may start now, asked as each slot fires with an event for it: a tenant's
   * endpoint that is disabled, or has its one probe out, says no ({@code EndpointHealth}), and
   * the slot goes unused ({@code disabled}). Always yes for a provider's own lane.
   */
  private volatile BooleanSupplier mayCall = () -> true;
  /**
   * This lane only ever holds one tenant's events (a tenant's own endpoint): an instance holding
   * it holds that tenant alone, so there is no share to work out and nothing is published.
   */
  private volatile boolean oneTenant;
  /** A publication of busy tenants is out. */
  private boolean sharing;
  private long lastShareNanos = Long.MIN_VALUE / 2;
  /** When the last publication was answered. */
  private long shareHeardNanos;
  /** What the last publication said: an empty one withdrew this lane. */
  private Map<String, Integer> publishedBusy = Map.of();
  /** How often a lane with work tells the others sharing its provider what it holds. */
  static final long SHARE_EVERY_MILLIS = 250;
  static final long SHARE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(SHARE_EVERY_MILLIS);
  /** A lane not heard from for this long drops out of the sums (it stopped or died). */
  static final long SHARE_TTL_MICROS = TimeUnit.SECONDS.toMicros(1);
  /** A share not confirmed for this long is not trusted: the lane claims as if alone. */
  static final long SHARE_STALE_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** The last claim failed: logged once until one is answered again. */
  private boolean leakDown;
  /** When entries this lane has no room or no turn for come back ({@link ParkingSchedule}). */
  private final ParkingSchedule parking = new ParkingSchedule();
  /**
   * Whether a queued entry may no longer be called (its deadline passed), asked as its slot
   * fires; such an entry goes to {@link #expired} instead of its call. Never, by default.
   */
  private volatile Predicate<DispatchEntry> pastDeadline = e -> false;
  private volatile Consumer<DispatchEntry> expired = e -> { };

  /**
   * An entry taken out of the queue to wait in Kafka for its turn ({@link #trim}), and how long.
   */
  public record Parked(DispatchEntry entry, long waitNanos) {}

  /**
   * @param limits      the limits each claim enforces, asked per claim
   * @param leaseMicros how long a concurrency lease outlives its slot when never released
   * @param cannotFit   takes a queued entry dearer than the provider's smallest cost window now
   *                    allows (a learned or reloaded limit lowered it), with why: it would block
   *                    the lane's head forever, so it leaves the queue (the caller defers it)
   * @param nanoTime    monotonic clock in nanoseconds ({@code System::nanoTime}): slots are timed,
   *                    and pauses and waits measured, on it
   */
  /**
   * A lane's settings, from its provider's configuration.
   *
   * @param id              the lane: a provider's, or a tenant's endpoint of one
   * @param leaseMicros     how long a concurrency lease outlives its slot if never released (the
   *                        call's timeout and a second)
   * @param maxInFlight     calls in flight at most ({@code maxInFlight})
   * @param lookaheadMicros how far ahead the lane claims slots ({@code dispatcher.lookahead})
   * @param tierWeights     the fair queue's weight per tier
   * @param bufferSize      entries queued at most ({@code dispatcher.bufferSize})
   */
  public record Settings(LaneId id, long leaseMicros, int maxInFlight, long lookaheadMicros,
      Map<String, Double> tierWeights, int bufferSize) {}

  /** What a lane calls: its provider's limits, the provider, the leak it shares. */
  public record Calls(LimitSource limits, Provider provider, LeakyBucket leak) {}

  /**
   * What a lane reports to and runs on.
   *
   * @param timer     runs the lane's due slots and pauses (one thread, shared by the lanes)
   * @param results   what becomes of each call's result
   * @param listener  metrics and events
   * @param cannotFit an entry that can no longer fit its provider's limits, and why
   * @param nanoTime  the lane's monotonic clock
   * @param pace      the dispatcher's pace: the lane claims at its rate times the factor, and
   *                  reports how late its slots fire ({@link PaceGovernor})
   */
  public record Hooks(ScheduledExecutorService timer, ResultHandler results,
      DispatchListener listener, BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime,
      Pace pace) {
    /** A lane at full pace always ({@link Pace#FULL}). */
    public Hooks(ScheduledExecutorService timer, ResultHandler results, DispatchListener listener,
        BiConsumer<DispatchEntry, String> cannotFit, LongSupplier nanoTime) {
      this(timer, results, listener, cannotFit, nanoTime, Pace.FULL);
    }
  }

  public ProviderLane(Settings settings, Calls calls, Hooks hooks) {
    this.id = settings.id();
    this.name = id.name();
    this.nanoTime = hooks.nanoTime();
    this.cannotFit = hooks.cannotFit();
    this.limits = calls.limits();
    this.leaseMicros = settings.leaseMicros();
    this.lookaheadMicros = settings.lookaheadMicros();
    this.queue = new FairQueue<>(settings.tierWeights(), settings.bufferSize());
    this.configuredWeights = Map.copyOf(settings.tierWeights());
    this.appliedWeights = this.configuredWeights;
    this.provider = calls.provider();
    this.leak = calls.leak();
    this.timer = hooks.timer();
    this.results = hooks.results();
    this.listener = hooks.listener();
    this.pace = hooks.pace();
    this.schedule = new LaneSchedule(limits.current().ratePerSecond(), settings.maxInFlight(),
        nanoTime.getAsLong());
  }

  /**
   * New configured tier weights, from now on ({@link FairQueue#reweigh}); the next share this
   * lane hears is worked out from them, and until then its fair queue uses them as they are.
   */
  public synchronized void reweigh(Map<String, Double> tierWeights) {
    configuredWeights = Map.copyOf(tierWeights);
    applyWeights(configuredWeights);
  }

  /** Caller holds the monitor. */
  private void applyWeights(Map<String, Double> weights) {
    if (!weights.equals(appliedWeights)) {
      queue.reweigh(weights);
      appliedWeights = weights;
    }
  }

  /**
   * Tells the other instances sharing this provider how many busy tenants of each tier this lane
   * holds, at most every {@link #SHARE_EVERY_NANOS}, and takes the share of the leak the sums give
   * it ({@link GlobalShare}, {@link ClaimAllowance}). Publishes while the lane has work, and once
   * more when it has none, which withdraws it.
   */
  private void shareBusyTenants() {
    if (oneTenant) {
      return;
    }
    Map<String, Integer> busy;
    long now = nanoTime.getAsLong();
    synchronized (this) {
      if (schedule.closed()) {
        return;
      }
      boolean beyondRate = limits.current().hasLimitsBeyondRate();
      if (beyondRate || now - shareHeardNanos > SHARE_STALE_NANOS) {
        // Limits beyond the rate (calls or cost windows, concurrency) set the pace, which a
        // share of the rate does not know: a cap from it could hold back slots the windows
        // allow, and scaled weights without a cap would split the leak worse than the
        // configured ones, so such a provider is not shared (fair within each instance, the
        // leak strict). And a share not confirmed for a while (Redis slow or down, or a
        // publication that never came back) is not trusted: claim as one alone would.
        schedule.unshared();
        applyWeights(configuredWeights);
        if (beyondRate) {
          return;
        }
      }
      // One publication at a time; one out for longer than the stale time is given up.
      if ((sharing && now - lastShareNanos < SHARE_STALE_NANOS)
          || now - lastShareNanos < SHARE_EVERY_NANOS) {
        return;
      }
      busy = queue.busyTenantsByTier();
      if (busy.isEmpty() && publishedBusy.isEmpty()) {
        return;
      }
      sharing = true;
      lastShareNanos = now;
      publishedBusy = busy;
    }
    CompletionStage<Map<String, Integer>> answer;
    try {
      answer = leak.busyTenants(name, leasePrefix, busy, SHARE_TTL_MICROS);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((global, error) -> {
      synchronized (this) {
        sharing = false;
        if (error != null) {
          return;
        }
        long heard = nanoTime.getAsLong();
        shareHeardNanos = heard;
        if (busy.isEmpty() || limits.current().hasLimitsBeyondRate()) {
          // Withdrawn, or the limits went beyond the rate while the publication was out.
          schedule.unshared();
          applyWeights(configuredWeights);
          return;
        }
        GlobalShare share = GlobalShare.of(configuredWeights, busy, global);
        schedule.shareLeak(share.instanceShare(), TimeUnit.MICROSECONDS.toNanos(lookaheadMicros),
            heard);
        applyWeights(share.localWeights());
      }
      if (error == null) {
        later(this::kick, 0);
      }
    });
  }

  public String name() {
    return name;
  }

  /** Which lane this is. */
  public LaneId id() {
    return id;
  }

  /**
   * This endpoint lane's part of its provider's {@code totalRate}: it claims at most
   * {@code partPerSecond} of the {@code totalPerSecond} calls a second (plus 2%), while the total
   * line is busy ({@link LaneSchedule#shareTotal}).
   */
  public synchronized void shareTotal(double partPerSecond, double totalPerSecond) {
    schedule.shareTotal(partPerSecond, totalPerSecond,
        TimeUnit.MICROSECONDS.toNanos(lookaheadMicros), nanoTime.getAsLong());
  }

  /** Busy tenants (with entries queued) per tier, now. */
  public synchronized Map<String, Integer> busyTenantsByTier() {
    return queue.busyTenantsByTier();
  }

  /**
   * Queues an entry. When the buffer is full, returns the entry the fair queue would serve last
   * (possibly this one), which the caller defers through the ladder.
   */
  public Optional<DispatchEntry> offer(DispatchEntry entry) {
    Optional<DispatchEntry> evicted;
    synchronized (this) {
      evicted = queue.offer(entry.tier(), entry.event().tenant(), entry.event().cost(), entry);
      schedule.queued(entry.event().cost());
      evicted.ifPresent(this::unqueued);
    }
    kick();
    return evicted;
  }

  /** Drops queued entries (of revoked partitions); their calls have not started. */
  public synchronized List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
    List<DispatchEntry> dropped = queue.removeIf(which);
    dropped.forEach(this::unqueued);
    return dropped;
  }

  /** An entry left the queue. Caller holds the monitor. */
  private void unqueued(DispatchEntry entry) {
    schedule.unqueued(entry.event().cost());
  }

  /**
   * How fast this lane can empty its buffer: the leak rate (or a calls window's amount per its
   * period, if fewer), or fewer when slow calls fill {@code maxInFlight}
   * ({@link LaneSchedule#drainPerSecond}).
   */
  public synchronized double drainPerSecond() {
    return schedule.drainPerSecond(limits.current().sustainedCallsPerSecond() * pace.factor());
  }

  /** Entries this lane queues at most. */
  public int capacity() {
    return queue.capacity();
  }

  public synchronized int queued() {
    return queue.size();
  }

  /**
   * Waits until every call of {@code partitions} has come back and been handed to the result
   * handler, at most until {@code deadlineNanos} (on this lane's clock). Queued entries of those
   * partitions must have been dropped first, or new calls may start. True if none is left.
   */
  public synchronized boolean awaitCalls(Collection<TopicPartition> partitions,
      long deadlineNanos) throws InterruptedException {
    while (partitions.stream().anyMatch(unjudged::containsKey)) {
      long left = deadlineNanos - nanoTime.getAsLong();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  public synchronized int inFlight() {
    return schedule.inFlight();
  }

  /**
   * The provider said "too many": no call from this lane starts within {@code retryAfterMillis},
   * and the shared leak pauses and slows for every instance.
   */
  public void throttle(long retryAfterMillis, long claimedAtMicros) {
    long now = nanoTime.getAsLong();
    synchronized (this) {
      schedule.pause(now, retryAfterMillis);
    }
    later(this::kick, TimeUnit.MILLISECONDS.toNanos(retryAfterMillis));
    listener.throttled(name, retryAfterMillis);
    leak.throttled(name, limits.current().ratePerSecond(), retryAfterMillis, claimedAtMicros).whenComplete((ok, error) -> {
      if (error != null) {
        LOG.warn("{}: could not share a provider throttle through the leak ({})", name,
            error.toString());
      }
    });
  }

  /**
   * No call from this lane starts within {@code millis}, at this instance only, and the rate is
   * left as it is: the lane cannot call (its OAuth2 token is missing), the provider did not ask
   * anyone to slow down.
   */
  public void hold(long millis) {
    long now = nanoTime.getAsLong();
    synchronized (this) {
      schedule.pause(now, millis);
    }
    later(this::kick, TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /**
   * This lane only ever holds one tenant's events (a tenant's own endpoint); set once, before the
   * first offer. Every instance holding it then holds that one tenant: its share of the leak
   * would be an equal split of one tier's single tenant, which claiming freely gives too, so it
   * publishes no busy tenants (one Redis call a lane every {@value #SHARE_EVERY_MILLIS} ms while
   * busy, most of a thousand endpoints' Redis calls besides their claims).
   */
  public void oneTenant() {
    this.oneTenant = true;
  }

  /**
   * The lane's first claim waits {@code delayNanos} (set before the first offer): lanes opened
   * together then take their first slots, and keep their phases, spread over an interval rather
   * than at one instant ({@code EndpointLanes#firstClaimDelay}).
   */
  public void startAfter(long delayNanos) {
    if (delayNanos <= 0) {
      return;
    }
    synchronized (this) {
      schedule.holdClaims(nanoTime.getAsLong() + delayNanos);
    }
    later(this::kick, delayNanos);
  }

  /** Asks {@code gate} before each call ({@link #mayCall}); set once, before the first offer. */
  public void gate(BooleanSupplier gate) {
    this.mayCall = gate;
  }

  /**
   * Asks {@code pastDeadline} of each entry as its slot fires; one past its deadline goes to
   * {@code expired}, never to the provider (the slot goes unused). Set once, before the first offer.
   */
  public void expireWith(Predicate<DispatchEntry> pastDeadline,
      Consumer<DispatchEntry> expired) {
    this.pastDeadline = pastDeadline;
    this.expired = expired;
  }

  /**
   * How long an entry this lane turned away now (its buffer full) waits before the lane can take
   * it: behind what is queued and what was parked before it, at the lane's paced rate, after its
   * hold ({@link ParkingSchedule#park}); one {@code returning} from a park, behind what is queued
   * only. Moves the lane's tail otherwise: ask once per entry turned away.
   */
  public synchronized long parkNanos(boolean returning) {
    long now = nanoTime.getAsLong();
    return parking.park(now, queue.size(), pacedPerSecond(), schedule.readyAtNanos(), returning)
        - now;
  }

  /**
   * When the lane may not call for longer than {@code keepNanos} (a provider's
   * {@code Retry-After}, a disabled endpoint until its probe), takes every queued entry but the
   * first out of the queue, each with how long it waits for its turn after the hold, in the
   * order they would have been served; the first stays (the next call, or the probe). A lane
   * that may call keeps its queue: its backlog drains, and one that outgrows the buffer
   * overflows at its turn (reading its partition on pauses when all its arrivals overflow).
   */
  public synchronized List<Parked> trim(long keepNanos) {
    long now = nanoTime.getAsLong();
    if (schedule.readyAtNanos() - now <= keepNanos) {
      return List.of();
    }
    double rate = pacedPerSecond();
    int keeps = ParkingSchedule.keeps(now, rate, schedule.readyAtNanos(), keepNanos);
    if (queue.size() <= keeps) {
      return List.of();
    }
    ArrayDeque<DispatchEntry> removed = new ArrayDeque<>();
    while (queue.size() > keeps) {
      DispatchEntry e = queue.removeLast().orElseThrow();
      unqueued(e);
      removed.addFirst(e);
    }
    List<Parked> parked = new ArrayList<>(removed.size());
    int ahead = keeps;
    for (DispatchEntry e : removed) {
      parked.add(new Parked(e, parking.park(now, ahead++, rate, schedule.readyAtNanos()) - now));
    }
    return parked;
  }

  /**
   * How long the lane may not call any more, from now: its provider's {@code Retry-After}, or a
   * hold (a missing credential, a disabled endpoint until its probe); 0 when it may.
   */
  public synchronized long heldForNanos() {
    return Math.max(0, schedule.readyAtNanos() - nanoTime.getAsLong());
  }

  /** The lane's paced rate: what its limits sustain, at the dispatcher's pace. Caller holds the monitor. */
  private double pacedPerSecond() {
    return limits.current().sustainedCallsPerSecond() * pace.factor();
  }

  /** Nothing queued and nothing in flight: the lane may be retired. */
  public synchronized boolean idle() {
    return queue.isEmpty() && schedule.inFlight() == 0;
  }

  /** Claims slots if there is work for them and room in flight. Called after every change. */
  void kick() {
    shareBusyTenants();
    int wanted;
    ProviderLimits enforced = limits.current();
    long slotCost;
    String leases = null;
    List<DispatchEntry> unfit = List.of();
    long sendable = enforced.largestSendableCost();
    synchronized (this) {
      if (!schedule.mayClaim()) {
        return;
      }
      schedule.retune(enforced.ratePerSecond(), enforced.windowMarginNanos(),
          nanoTime.getAsLong());
      // An event dearer than the CONFIGURED windows never gets here: that is its own fault, and
      // ReadyRecordCheck dead-letters it before any slot. This catches limits lowered since (a
      // learned or reloaded window), which are the lane's state, not the event's: it goes round
      // the ladder instead, by when the learned limit may have grown again.
      if (schedule.holdsCostAbove(sendable)) {
        unfit = queue.removeIf(e -> e.event().cost() > sendable);
        unfit.forEach(this::unqueued);
      }
    }
    for (DispatchEntry e : unfit) {
      cannotFit.accept(e, "cost " + e.event().cost() + " exceeds what " + name
          + "'s smallest cost window allows now (" + sendable + ")");
    }
    synchronized (this) {
      wanted = schedule.claimSlots(queue.size(), nanoTime.getAsLong());
      if (wanted <= 0) {
        long shareWait = schedule.takeShareWait();
        if (shareWait > 0) {
          later(this::kick, shareWait);
        }
        return;
      }
      slotCost = schedule.slotCost(enforced.countsCost());
      if (enforced.hasConcurrency()) {
        leases = leasePrefix + ":" + claims++;
      }
    }
    CompletionStage<SlotClaim> claim;
    long sentNanos = nanoTime.getAsLong();
    LimitedClaim request = null;
    // The dispatcher's pace: an overloaded process claims its slots further apart. The leak
    // spaces a claim's slots by the rate it is given, so this lane's slots are at least
    // 1 / (rate * factor) apart, never closer than its rate allows; the pacer's tolerance and
    // slack stay those of the rate itself, which the other instances' slots are spaced by.
    double factor = pace.factor();
    try {
      if (enforced.hasLimitsBeyondRate()) {
        request = new LimitedClaim(wanted, lookaheadMicros, slotCost,
            leases == null ? leasePrefix : leases, leaseMicros);
        claim = leak.claim(name, factor < 1 ? enforced.withRate(enforced.ratePerSecond() * factor)
            : enforced, request);
      } else {
        claim = leak.claim(name, enforced.ratePerSecond() * factor, wanted, lookaheadMicros);
      }
    } catch (RuntimeException e) {
      claimFailed(e);
      return;
    }
    LimitedClaim sent = request;
    boolean leased = leases != null;
    long maxCost = enforced.countsCost() ? slotCost : Long.MAX_VALUE;
    claim.whenComplete((c, error) -> {
      if (error != null) {
        claimFailed(error);
      } else {
        claimed(c, sent, leased, maxCost, sentNanos, nanoTime.getAsLong());
      }
    });
  }

  private void claimed(SlotClaim claim, LimitedClaim request, boolean leased, long maxCost,
      long sentNanos, long receivedNanos) {
    long[] dueNanos = new long[claim.granted()];
    synchronized (this) {
      schedule.claimAnswered(sentNanos, receivedNanos, claim.nowMicros());
      if (leakDown) {
        leakDown = false;
        LOG.info("{}: the leak answers again", name);
      }
      if (schedule.closed()) {
        // Granted leases would hold other instances' concurrency until they expire.
        for (int i = 0; leased && i < claim.granted(); i++) {
          releaseLease(request.leaseId(i));
        }
        return;
      }
      schedule.granted(claim.granted());
      schedule.claimedFromShare(claim.granted(), claim.firstSlotMicros(), claim.intervalMicros(),
          claim.nowMicros(), receivedNanos);
      for (int i = 0; i < claim.granted(); i++) {
        dueNanos[i] = schedule.dueNanos(claim.slotMicros(i));
      }
    }
    long intervalNanos = TimeUnit.MICROSECONDS.toNanos(claim.intervalMicros());
    long now = nanoTime.getAsLong();
    for (int i = 0; i < claim.granted(); i++) {
      Slot slot = new Slot(claim.slotMicros(i), claim.nowMicros(), dueNanos[i], intervalNanos,
          maxCost, leased ? request.leaseId(i) : null);
      // Asked to run at its instant, or now if that has passed: how late the timer runs it is
      // the timer's lateness alone (the pace's signal), not the claim's.
      long at = dueNanos[i] - now > 0 ? dueNanos[i] : now;
      later(() -> fire(slot, at), at - now);
    }
    if (claim.granted() == 0) {
      long waitNanos;
      synchronized (this) {
        waitNanos = schedule.noSlotsUntil(receivedNanos, claim.nowMicros(), claim.retryAtMicros());
      }
      later(this::kick, waitNanos);
    } else {
      kick();
    }
  }

  private void claimFailed(Throwable error) {
    boolean first;
    long waitNanos;
    long now = nanoTime.getAsLong();
    synchronized (this) {
      // The wait is set with the failure, so that no kick in between asks the silent leak again.
      waitNanos = schedule.claimFailed(now);
      first = !leakDown;
      leakDown = true;
    }
    if (first) {
      LOG.warn("{}: the leak does not answer ({}); no calls until it does", name, error.toString());
    }
    listener.leakUnavailable(name, error);
    later(this::kick, waitNanos);
  }

  /**
   * A slot claimed from the leak: {@code slotMicros} on the leak's clock, due locally at
   * {@code dueNanos}; {@code claimedAtMicros} is when the leak granted it. {@code maxCost}: the
   * cost it reserved (no event dearer may use it); {@code lease}: the concurrency lease it holds,
   * or null.
   */
  private record Slot(long slotMicros, long claimedAtMicros, long dueNanos, long intervalNanos,
      long maxCost, String lease) {}

  /**
   * Gives back a slot's concurrency lease; a lost release only waits for the lease to expire. Once
   * the leak has it back the lane may claim again at once ({@link LaneSchedule#leaseReturned}):
   * a claim refused while this lane held every lease waits only for the leak's poll of other
   * instances' releases, and this one's own come back at a time only it knows.
   */
  private void release(Slot slot) {
    if (slot.lease() == null) {
      return;
    }
    releaseLease(slot.lease()).thenRun(() -> {
      synchronized (this) {
        schedule.leaseReturned(nanoTime.getAsLong());
      }
      kick();
    });
  }

  private CompletionStage<Void> releaseLease(String lease) {
    return leak.release(name, lease).whenComplete((ok, error) -> {
      if (error != null) {
        LOG.debug("{}: could not release lease {} ({}); it expires on its own", name, lease,
            error.toString());
      }
    });
  }

  /**
   * A slot is due, the timer asked to run this at {@code atNanos}: send the event the fair queue
   * picks now, if any.
   */
  private void fire(Slot slot, long atNanos) {
    DispatchEntry next = null;
    DispatchEntry pastDue = null;
    String wasted = null;
    long ticket = -1;
    long firedNanos = nanoTime.getAsLong();
    pace.slotFired(firedNanos, Math.max(0, firedNanos - atNanos));
    synchronized (this) {
      long now = nanoTime.getAsLong();
      SlotPacer.Decision decision = schedule.slotDue(now, slot.dueNanos(), slot.intervalNanos());
      if (decision instanceof SlotPacer.Decision.WaitUntil w) {
        later(() -> fire(slot, w.atNanos()), w.atNanos() - now);
        return;
      }
      if (!(decision instanceof SlotPacer.Decision.Fire)) {
        wasted = schedule.closed() || schedule.paused(now) ? "paused" : "late";
      } else if (queue.isEmpty()) {
        wasted = "empty";
      } else if (queue.peek().map(e -> e.event().cost() > slot.maxCost()).orElse(false)) {
        wasted = "dearer";
      } else if (!mayCall.getAsBoolean()) {
        wasted = "disabled";
      }
      if (wasted == null && queue.peek().map(pastDeadline::test).orElse(false)) {
        wasted = "expired";
        pastDue = queue.poll().orElse(null);
        if (pastDue != null) {
          unqueued(pastDue);
        }
      }
      if (wasted == null) {
        next = queue.poll().orElse(null);
        if (next != null) {
          unqueued(next);
          ticket = schedule.started(now);
          unjudged.merge(next.partition(), 1, Integer::sum);
        }
      }
    }
    DispatchEntry entry = next;
    long callTicket = ticket;
    if (wasted != null) {
      listener.slotWasted(name, wasted);
    }
    if (pastDue != null) {
      expired.accept(pastDue); // its deadline passed while it waited: never called after it
    }
    if (entry == null) {
      release(slot);
      kick();
      return;
    }
    long slotMicros = slot.slotMicros();
    long claimedAtMicros = slot.claimedAtMicros();
    long dueNanos = slot.dueNanos();
    if (slot.maxCost() != Long.MAX_VALUE && entry.event().cost() < slot.maxCost()) {
      leak.settle(name, limits.current(), slotMicros, slot.maxCost(), entry.event().cost())
          .whenComplete((ok, error) -> {
            if (error != null) {
              LOG.debug("{}: could not give back unused cost ({}); it stays charged", name,
                  error.toString());
            }
          });
    }
    long started = nanoTime.getAsLong();
    listener.callStarted(name, entry.tier(), slotMicros, started - dueNanos);
    CompletionStage<ProviderResult> call;
    try {
      call = provider.call(new ProviderCall(entry.event().id(), entry.event().path(),
          PayloadBytes.of(entry.value()), entry.event().attributes(), entry.attempts() + 1,
          entry.event().cost()));
    } catch (RuntimeException e) {
      call = CompletableFuture.completedFuture(
          new ProviderResult.ConnectFailed("provider threw " + e));
    }
    long returned = nanoTime.getAsLong();
    synchronized (this) {
      schedule.clientReturned(started, returned);
    }
    call.whenComplete((result, error) -> {
      ProviderResult r = error == null ? result
          : new ProviderResult.ConnectFailed("provider failed: " + error);
      long cameBack = nanoTime.getAsLong();
      long latency = cameBack - started;
      long excess = Long.MIN_VALUE;
      synchronized (this) {
        schedule.ended(latency);
        schedule.cameBack(callTicket, cameBack);
        // 2xx only: a provider answering 4xx fast and 2xx slowly would otherwise have a usual
        // between the two, and every 2xx would read as held up in this process.
        if (r instanceof ProviderResult.Answered a && a.status() / 100 == 2) {
          excess = schedule.answered(latency);
        }
      }
      if (excess != Long.MIN_VALUE) {
        pace.callAnswered(this, started + latency, started, excess);
      }
      listener.callEnded(name, entry.tier(), r, latency);
      release(slot);
      try {
        Settlement settlement = results.settle(id, entry, r, claimedAtMicros);
        obey(settlement.first());
        obey(settlement.complete());
      } finally {
        synchronized (this) {
          // Warm only once the first answer has been judged and learned from (seen from outside
          // before: 20 calls at the configured 100/s before the learned 10/s took hold).
          schedule.judged();
          unjudged.computeIfPresent(entry.partition(), (tp, n) -> n == 1 ? null : n - 1);
          notifyAll();
        }
        kick();
      }
    });
  }

  /** Carries out what a settlement asks of this lane ({@link LaneOrder}). */
  private void obey(List<LaneOrder> orders) {
    for (LaneOrder order : orders) {
      if (order instanceof LaneOrder.Throttle t) {
        throttle(t.millis(), t.claimedAtMicros());
      } else if (order instanceof LaneOrder.Hold h) {
        hold(h.millis());
      } else {
        drop(e -> true).forEach(((LaneOrder.DropQueued) order).to());
      }
    }
  }

  private void later(Runnable task, long delayNanos) {
    try {
      timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException rejected) {
      // The timer is shut down: the dispatcher is closing.
    }
  }

  /** Claims no more slots and starts no more calls; calls in flight finish on their own. */
  @Override
  public synchronized void close() {
    schedule.close();
  }
}
