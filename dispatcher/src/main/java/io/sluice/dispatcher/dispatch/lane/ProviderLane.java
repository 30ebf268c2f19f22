package io.sluice.dispatcher.dispatch.lane;

import io.sluice.config.BatchRule;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchSpans;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.fair.FairQueue;
import io.sluice.dispatcher.fair.GlobalShare;
import io.sluice.dispatcher.fair.PriorityOrder;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.provider.BatchBody;
import io.sluice.dispatcher.provider.PayloadBytes;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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
 * others sharing the provider, every 250 ms while it has work ({@code ShareCadence}), how many
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
 * <h2>Batches</h2>
 *
 * A provider with {@code batch:} takes several events in one call ({@link #batchWith}): a due
 * slot takes the head of the queue and the heads after it while {@link BatchFill} says they fit,
 * and the call carries them all, one slot and one call of every window, their summed cost in the
 * cost windows (the slot reserved the dearest {@code maxEvents} queued). What comes back is made
 * into each event's own result and each is settled on its own; their orders are carried out once
 * ({@link BatchOutcomes}). The lane claims one slot per {@code maxEvents} queued, and its drain
 * and parking count events ({@code maxEvents} a call).
 *
 * <h2>Decisions and the shell</h2>
 *
 * What to do at each step (when to claim and how many, the pause, the warm-up, which queued
 * entries no longer fit) is decided by {@link LaneSchedule}, what a due slot does with the head of
 * the queue by {@code SlotUse}, when to publish busy tenants by {@code ShareCadence}, and which
 * entries wait in Kafka by {@code LaneParking}: each pure and tested on a fake clock. The steps
 * are carried out by parts, each with one concern: getting slots ({@code SlotClaims}: claims,
 * their timers, leases, the share of the leak), the queue and its weights ({@code LaneQueue}),
 * the talk with the leak ({@code LaneLeak}), the calls not yet judged ({@code UnjudgedCalls}).
 * This class is the lane's face to the dispatcher, and uses each due slot: it picks the event,
 * starts the call, hands the result to be settled and carries out the settlement's orders
 * ({@link LaneOrder#carryOut}). Every instant comes from the injected {@code nanoTime}.
 *
 * <p>Thread-safety: the consumer thread offers and removes, the timer thread fires slots, and the
 * leak's and the provider's completions arrive on their own threads; every state change happens
 * under this lane's monitor, and no I/O is started while holding it.
 */
public final class ProviderLane implements AutoCloseable, LaneOrder.Target {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderLane.class);
  /** A 429 excused from cutting the rate is logged at most this often per lane. */
  private static final long EXCUSED_LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
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
      Map<String, Double> tierWeights, int bufferSize, PriorityOrder priorityOrder) {
    /** With the default aging of {@link PriorityOrder#byDefault()}. */
    public Settings(LaneId id, long leaseMicros, int maxInFlight, long lookaheadMicros,
        Map<String, Double> tierWeights, int bufferSize) {
      this(id, leaseMicros, maxInFlight, lookaheadMicros, tierWeights, bufferSize,
          PriorityOrder.byDefault());
    }
  }

  /** What a lane calls: its provider's limits, the provider, the leak it shares. */
  public record Calls(LimitSource limits, Provider provider, LeakyBucket leak) {}

  /**
   * A 429 to a call handed over within this long after a sign that calls were bunched (a stall of
   * this dispatcher, an answer held up) cuts no rate ({@link #answerTo}): the calls a provider
   * counts against one are those of the second before it ("N in any second").
   */
  static final long LATE_BEFORE_CALL_NANOS = TimeUnit.SECONDS.toNanos(1);
  /**
   * An answer this much slower than its lane's usual ({@link LaneSchedule#answered}) says its
   * call reached the provider late, held after its hand-off (in this process's HTTP client, the
   * network, or the provider's own process), and calls held together arrive together: at 48/s,
   * 50 ms holds two or three ({@link #answerTo}).
   */
  static final long BUNCHED_ANSWER_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final LaneId id;
  /** {@link #id}'s name: the key of the lane's leak, learned limits and throttle. */
  private final String name;
  private final LimitSource limits;
  private final Provider provider;
  private final LaneLeak leak;
  private final LaneTimer timer;
  private final ResultHandler results;
  private final DispatchListener listener;
  /** The dispatcher's pace: the share of the rate each claim takes ({@link PaceGovernor}). */
  private final Pace pace;
  /** Monotonic nanoseconds ({@code System::nanoTime} in production): every instant of this lane. */
  private final LongSupplier nanoTime;
  /** Each call's wait and attempt spans. */
  private final DispatchSpans spans;
  /**
   * The lane's timing decisions: when to claim and how many, whether a due slot is on time, the
   * pause, the warm-up, the drain estimate. This class and its parts carry them out.
   */
  private final LaneSchedule schedule;
  private final LaneQueue queue;
  /** When entries this lane has no room or no turn for come back. */
  private final LaneParking parking;
  private final UnjudgedCalls unjudged = new UnjudgedCalls();
  /** How the lane gets its slots: claims, their timers, leases, the share of the leak. */
  private final SlotClaims claims;
  /**
   * Whether a call may start now, asked as each slot fires with an event for it: a tenant's
   * endpoint that is disabled, or has its one probe out, says no ({@code EndpointHealth}), and
   * the slot goes unused ({@code disabled}). Always yes for a provider's own lane.
   */
  private volatile BooleanSupplier mayCall = () -> true;
  /**
   * Whether a queued entry may no longer be called (its deadline passed), asked as its slot
   * fires; such an entry goes to {@link #expired} instead of its call. Never, by default.
   */
  private volatile Predicate<DispatchEntry> pastDeadline = e -> false;
  /**
   * Whether any call of the dispatcher may start now, asked as each slot fires with an event for
   * it, before {@link #mayCall}: not while its settlements go unacknowledged by Kafka (the broker
   * away), and the slot goes unused ({@link SlotUse#UNWRITTEN}). Always yes by default.
   */
  private volatile BooleanSupplier callsGo = () -> true;
  private volatile Consumer<DispatchEntry> expired = e -> { };
  /** How many events go in one call ({@code batch:}); off: one call per event. */
  private volatile BatchRule batch = BatchRule.OFF;
  /** When this lane's last call started (a batching lane's {@code maxWait}); under the monitor. */
  private long lastCallNanos = Long.MIN_VALUE;
  /** When an answer last came {@link #BUNCHED_ANSWER_NANOS} slower than usual, and whether one did. */
  private long slowAnswerAtNanos;
  private boolean anySlowAnswer;
  /** When a 429 excused from cutting the rate was last logged, and whether one was. */
  private volatile long excusedLoggedNanos;
  private volatile boolean excusedLogged;

  public ProviderLane(Settings settings, Calls calls, LaneHooks hooks) {
    this.id = settings.id();
    this.name = id.name();
    this.nanoTime = hooks.nanoTime();
    this.limits = calls.limits();
    this.provider = calls.provider();
    this.leak = new LaneLeak(name, calls.leak(), settings.lookaheadMicros(),
        settings.leaseMicros());
    this.timer = new LaneTimer(hooks.timer());
    this.results = hooks.results();
    this.listener = hooks.listener();
    this.pace = hooks.pace();
    this.spans = hooks.spans();
    this.schedule = new LaneSchedule(limits.current().ratePerSecond(), settings.maxInFlight(),
        nanoTime.getAsLong());
    this.queue = new LaneQueue(settings.tierWeights(), settings.bufferSize(), schedule,
        settings.priorityOrder());
    this.parking = new LaneParking(queue);
    this.claims = new SlotClaims(this, name, hooks, timer, limits, schedule, queue, leak,
        this::fire);
  }

  /**
   * New configured tier weights, from now on ({@link FairQueue#reweigh}); the next share this
   * lane hears is worked out from them, and until then its fair queue uses them as they are.
   */
  public synchronized void reweigh(Map<String, Double> tierWeights) {
    queue.reweigh(tierWeights);
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
    schedule.shareTotal(partPerSecond, totalPerSecond, leak.lookaheadNanos(), nanoTime.getAsLong());
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
      evicted = queue.offer(entry, nanoTime.getAsLong());
    }
    kick();
    return evicted;
  }

  /** Drops queued entries (of revoked partitions); their calls have not started. */
  @Override
  public synchronized List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
    return queue.removeIf(which);
  }

  /**
   * How fast this lane can empty its buffer: the leak rate (or a calls window's amount per its
   * period, if fewer), or fewer when slow calls fill {@code maxInFlight}
   * ({@link LaneSchedule#drainPerSecond}).
   */
  public synchronized double drainPerSecond() {
    return schedule.drainPerSecond(limits.current().sustainedCallsPerSecond() * pace.factor())
        * eventsPerCall();
  }

  /**
   * What waits in this lane's queue now, by tier and by tenant, and when each tier's part is
   * served at {@link #drainPerSecond} ({@link LaneBacklog}); O(queued).
   */
  public synchronized LaneBacklog backlog() {
    LaneBacklog.Builder b = new LaneBacklog.Builder();
    queue.forEachQueued((tier, tenant, cost, entry) -> b.add(tier, tenant, cost, entry.firstSeen()));
    return b.build(queue.appliedWeights(), drainPerSecond());
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
    while (unjudged.anyOf(partitions)) {
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
  @Override
  public void throttle(long retryAfterMillis, long claimedAtMicros) {
    long now = nanoTime.getAsLong();
    synchronized (this) {
      schedule.pause(now, retryAfterMillis);
    }
    timer.later(this::kick, TimeUnit.MILLISECONDS.toNanos(retryAfterMillis));
    listener.throttled(name, retryAfterMillis);
    leak.throttled(limits.current().ratePerSecond(), retryAfterMillis, claimedAtMicros);
  }

  /**
   * No call from this lane starts within {@code millis}, at this instance only, and the rate is
   * left as it is: the lane cannot call (its OAuth2 token is missing), the provider did not ask
   * anyone to slow down.
   */
  @Override
  public void hold(long millis) {
    long now = nanoTime.getAsLong();
    synchronized (this) {
      schedule.pause(now, millis);
    }
    timer.later(this::kick, TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /**
   * This lane only ever holds one tenant's events (a tenant's own endpoint); set once, before the
   * first offer. Every instance holding it then holds that one tenant: its share of the leak
   * would be an equal split of one tier's single tenant, which claiming freely gives too, so it
   * publishes no busy tenants (one Redis call a lane every 250 ms while busy, most of a thousand
   * endpoints' Redis calls besides their claims).
   */
  public void oneTenant() {
    claims.oneTenant();
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
    timer.later(this::kick, delayNanos);
  }

  /** Asks {@code gate} before each call ({@link #mayCall}); set once, before the first offer. */
  public void gate(BooleanSupplier gate) {
    this.mayCall = gate;
  }

  /**
   * Asks {@code callsGo} before each call, before {@link #gate}'s; set once, before the first
   * offer.
   */
  public void waitWhileUnwritten(BooleanSupplier callsGo) {
    this.callsGo = callsGo;
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
   * Sends up to {@code rule.maxEvents()} queued events in one call ({@link BatchFill}: one slot,
   * one call in the call windows, their summed cost in the cost windows), each settled on its own
   * ({@link BatchOutcomes}). Set once, before the first offer; {@link BatchRule#OFF}: one call per
   * event.
   */
  public void batchWith(BatchRule rule) {
    this.batch = rule;
    claims.batch(rule);
  }

  /**
   * How long an entry this lane turned away now (its buffer full) waits before the lane can take
   * it: behind what is queued and what was parked before it, at the lane's paced rate, after its
   * hold ({@link ParkingSchedule#park}); one {@code returning} from a park, behind what is queued
   * only. Moves the lane's tail otherwise: ask once per entry turned away.
   */
  public synchronized long parkNanos(boolean returning) {
    return parking.parkNanos(nanoTime.getAsLong(), pacedPerSecond(), schedule.readyAtNanos(),
        returning);
  }

  /**
   * When the lane may not call for longer than {@code keepNanos} (a provider's
   * {@code Retry-After}, a disabled endpoint until its probe), takes every queued entry but the
   * first out of the queue, each with how long it waits for its turn after the hold, in the
   * order they would have been served; the first stays (the next call, or the probe). A lane
   * that may call keeps its queue: its backlog drains, and one that outgrows the buffer
   * overflows at its turn (reading its partition on pauses when all its arrivals overflow).
   */
  public synchronized List<ParkedEntry> trim(long keepNanos) {
    return parking.trim(nanoTime.getAsLong(), this::pacedPerSecond, schedule.readyAtNanos(),
        keepNanos);
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
    return limits.current().sustainedCallsPerSecond() * pace.factor() * eventsPerCall();
  }

  /**
   * Events one call carries at most: a batching lane's {@code maxEvents} (its drain and its
   * parked entries' turns count events, not calls), else 1.
   */
  private int eventsPerCall() {
    return batch.on() ? batch.maxEvents() : 1;
  }

  /** Nothing queued and nothing in flight: the lane may be retired. */
  public synchronized boolean idle() {
    return queue.isEmpty() && schedule.inFlight() == 0;
  }

  /** Claims slots if there is work for them and room in flight. Called after every change. */
  void kick() {
    claims.kick();
  }

  /**
   * A slot is due, the timer asked to run this at {@code atNanos}: send the event the fair queue
   * picks now, if any ({@link SlotUse}).
   */
  private void fire(Slot slot, long atNanos) {
    DispatchEntry next = null;
    DispatchEntry pastDue = null;
    Batch sent = null;
    String wasted = null;
    long ticket = -1;
    long firedNanos = nanoTime.getAsLong();
    pace.slotFired(firedNanos, Math.max(0, firedNanos - atNanos));
    synchronized (this) {
      long now = nanoTime.getAsLong();
      SlotPacer.Decision due = schedule.slotDue(now, slot.dueNanos(), slot.intervalNanos());
      // A batch with room left waits for more, at most maxWait after the last call (BatchFill).
      SlotUse use = batch.on() && due instanceof SlotPacer.Decision.Fire && !queue.isEmpty()
          && !BatchFill.mayCall(batch, queue.size(), now, lastCallNanos)
          ? new SlotUse.Wasted("filling")
          : SlotUse.of(due, schedule.closed() || schedule.paused(now), queue.peek(),
              slot.maxCost(), callsGo, mayCall, pastDeadline);
      if (use instanceof SlotUse.WaitUntil w) {
        timer.later(() -> fire(slot, w.atNanos()), w.atNanos() - now);
        return;
      } else if (use instanceof SlotUse.Wasted w) {
        wasted = w.reason();
      } else if (use instanceof SlotUse.Expire) {
        wasted = SlotUse.Expire.REASON;
        pastDue = queue.poll().orElse(null);
      } else {
        next = queue.poll().orElse(null);
        if (next != null) {
          sent = batch.on() ? fill(next, slot.maxCost()) : Batch.of(next);
          ticket = schedule.started(now);
          lastCallNanos = now;
          for (DispatchEntry e : sent.entries()) {
            unjudged.started(e.partition());
          }
        }
      }
    }
    if (wasted != null) {
      listener.slotWasted(name, wasted);
    }
    if (pastDue != null) {
      expired.accept(pastDue); // its deadline passed while it waited: never called after it
    }
    if (sent != null) {
      sent.expired().forEach(expired); // past their deadlines as the batch filled: never sent
    }
    if (next == null) {
      claims.release(slot);
      kick();
      return;
    }
    call(sent, slot, ticket);
  }

  /**
   * The events of one call: a batching lane's ({@code payloads} kept for its body), or one event
   * ({@code payloads} null); {@code expired}: heads taken out past their deadlines as it filled.
   */
  private record Batch(List<DispatchEntry> entries, List<byte[]> payloads,
      List<DispatchEntry> expired) {
    static Batch of(DispatchEntry one) {
      return new Batch(List.of(one), null, List.of());
    }

    long cost() {
      long sum = 0;
      for (DispatchEntry e : entries) {
        sum += e.event().cost();
      }
      return sum;
    }
  }

  /**
   * Fills a batch from {@code first} and the heads of the queue after it, as {@link BatchFill}
   * says, within the slot's {@code maxCost}. Caller holds the monitor.
   */
  private Batch fill(DispatchEntry first, long maxCost) {
    BatchFill fill = new BatchFill(batch, maxCost);
    List<DispatchEntry> entries = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    List<DispatchEntry> late = new ArrayList<>(0);
    byte[] firstPayload = payloadOf(first);
    fill.offer(head(first, firstPayload, false));
    entries.add(first);
    payloads.add(firstPayload);
    for (Optional<DispatchEntry> peeked = queue.peek(); peeked.isPresent();
        peeked = queue.peek()) {
      DispatchEntry e = peeked.get();
      byte[] payload = payloadOf(e);
      BatchFill.Step step = fill.offer(head(e, payload, pastDeadline.test(e)));
      if (step == BatchFill.Step.STOP) {
        break;
      }
      queue.poll();
      if (step == BatchFill.Step.TAKE) {
        entries.add(e);
        payloads.add(payload);
      } else {
        late.add(e);
      }
    }
    return new Batch(entries, payloads, late);
  }

  /** What {@link BatchFill} knows of {@code e}. */
  private BatchFill.Head head(DispatchEntry e, byte[] payload, boolean pastDue) {
    String key = e.event().orderingKey();
    return new BatchFill.Head(e.event().cost(), BatchBody.bytesOf(payload),
        Arrays.asList(e.event().path(), e.event().attributes()),
        key == null ? null : e.event().tenant() + "\n" + key, pastDue);
  }

  /** {@code e}'s payload, as its call would send it; none when its value is not an object. */
  private static byte[] payloadOf(DispatchEntry e) {
    try {
      return PayloadBytes.of(e.value());
    } catch (IllegalArgumentException notAnObject) {
      return new byte[0];
    }
  }

  /**
   * Calls {@code sent} in {@code slot}: one event, or a batching lane's array of them, one call
   * either way; and settles what comes back, each event on its own ({@link BatchOutcomes}).
   */
  private void call(Batch sent, Slot slot, long ticket) {
    List<DispatchEntry> entries = sent.entries();
    DispatchEntry entry = entries.get(0);
    long cost = sent.cost();
    if (slot.reservedMoreThan(cost)) {
      leak.giveBack(limits.current(), slot.slotMicros(), slot.maxCost(), cost);
    }
    long started = nanoTime.getAsLong();
    listener.callStarted(name, entry.tier(), slot.slotMicros(), started - slot.dueNanos());
    // A batch's span is its first event's; the batch's call carries no traceparent (one trace
    // per event: the others' journeys end at their own outcome spans).
    DispatchSpans.Attempt span = spans.attempt(entry, name);
    CompletionStage<ProviderResult> call = sent.payloads() == null
        ? LaneCall.start(provider, entry, span.traceparent())
        : LaneCall.startBatch(provider, entries, sent.payloads());
    long returned = nanoTime.getAsLong();
    synchronized (this) {
      schedule.clientReturned(started, returned);
    }
    call.whenComplete((result, error) -> {
      ProviderResult r = LaneCall.result(result, error);
      long cameBack = nanoTime.getAsLong();
      span.ended(r);
      long latency = cameBack - started;
      long excess = Long.MIN_VALUE;
      synchronized (this) {
        schedule.ended(latency);
        schedule.cameBack(ticket, cameBack);
        if (LaneCall.succeeded(r)) {
          excess = schedule.answered(latency);
          if (excess >= BUNCHED_ANSWER_NANOS) {
            anySlowAnswer = true;
            slowAnswerAtNanos = cameBack;
          }
        }
      }
      if (excess != Long.MIN_VALUE) {
        pace.callAnswered(this, started + latency, started, excess);
      }
      listener.callEnded(name, entry.tier(), r, latency);
      claims.release(slot);
      try {
        settle(entries, sent.payloads() == null ? List.of(new BatchOutcomes.Each(r, false))
            : BatchOutcomes.split(r, entries.stream().map(e -> e.event().id()).toList()),
            slot.claimedAtMicros(), answerTo(started));
      } finally {
        synchronized (this) {
          // Warm only once the first answer has been judged and learned from (seen from outside
          // before: 20 calls at the configured 100/s before the learned 10/s took hold).
          schedule.judged();
          for (DispatchEntry e : entries) {
            unjudged.judged(e.partition());
          }
          notifyAll();
        }
        kick();
      }
    });
  }

  /**
   * Settles each of {@code entries} with its own result, then carries out their orders: one
   * event's as they are, a batch's merged ({@link BatchOutcomes#merge}: one pause, not one per
   * event), to {@code orders} ({@link #answerTo}: a 429 after a bunch pauses, cuts no rate).
   */
  private void settle(List<DispatchEntry> entries, List<BatchOutcomes.Each> each,
      long claimedAtMicros, LaneOrder.Target orders) {
    List<Settlement> settlements = new ArrayList<>(entries.size());
    List<List<LaneOrder>> first = new ArrayList<>(entries.size());
    List<Boolean> listed = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      Settlement settlement = results.settle(id, entries.get(i), each.get(i).result(),
          claimedAtMicros);
      settlements.add(settlement);
      first.add(settlement.first());
      listed.add(each.get(i).listed());
    }
    boolean alone = !batch.on(); // one event's orders, as they are
    LaneOrder.carryOut(alone ? first.get(0) : BatchOutcomes.merge(first, listed), orders);
    List<List<LaneOrder>> complete = new ArrayList<>(entries.size());
    for (Settlement settlement : settlements) {
      complete.add(settlement.complete());
    }
    LaneOrder.carryOut(alone ? complete.get(0) : BatchOutcomes.merge(complete, listed), orders);
  }

  /**
   * Carries out the orders of the answer to a call handed over at {@code startedNanos}: as this
   * lane's own, except that a 429 to a call that may have met a bunch of this lane's calls cuts
   * no rate (its throttle goes to the leak with no claim time, as a learned hold does). It still
   * pauses the lane and the leak for its {@code Retry-After}.
   *
   * <p>Why: a stall (of this process: a busy machine, a GC, another JVM starting on the same
   * cores; or of the provider's own process) lets calls sent one interval apart arrive together,
   * and a provider that allows N in any second refuses the bunch, or the call that comes a second
   * after it. The leak counts a 429 to a call claimed after the previous pause ended, within the
   * recovery, as evidence that the rate is too high and halves it. Issue 39: two 429s 10.8 s
   * apart, each after a bunch of 3 to 5 calls within a millisecond at the provider, held it at 24
   * of its 48/s for the 30 s of its recovery, next to a paused provider's resume (which took no
   * part in it). So a 429 counts toward a cut only when, from {@link #LATE_BEFORE_CALL_NANOS}
   * before the call was handed over until its answer, no slot of this dispatcher fired late
   * ({@link Pace#stalledSince}) and no answer of this lane came {@link #BUNCHED_ANSWER_NANOS}
   * slower than its usual (the calls were held after their hand-off). A rate that is too high is
   * still cut: its 429s keep coming while the calls land on time. What this cannot see: calls of
   * another instance bunched without this one's.
   */
  private LaneOrder.Target answerTo(long startedNanos) {
    return new LaneOrder.Target() {
      @Override
      public void throttle(long millis, long claimedAtMicros) {
        long since = startedNanos - LATE_BEFORE_CALL_NANOS;
        boolean stalled = claimedAtMicros != 0 && pace.stalledSince(since);
        boolean held = claimedAtMicros != 0 && !stalled && answeredSlowlySince(since);
        boolean ours = stalled || held;
        if (ours) {
          logExcused(millis, stalled ? "a slot of this dispatcher fired "
              + PaceGovernor.LATE_MILLIS + " ms or more late" : "an answer of this lane came "
              + TimeUnit.NANOSECONDS.toMillis(BUNCHED_ANSWER_NANOS) + " ms or more slower than "
              + "its usual");
        }
        ProviderLane.this.throttle(millis, ours ? 0 : claimedAtMicros);
      }

      @Override
      public void hold(long millis) {
        ProviderLane.this.hold(millis);
      }

      @Override
      public List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
        return ProviderLane.this.drop(which);
      }
    };
  }

  /** Whether an answer of this lane came {@link #BUNCHED_ANSWER_NANOS} slower than usual since then. */
  private synchronized boolean answeredSlowlySince(long sinceNanos) {
    return anySlowAnswer && slowAnswerAtNanos - sinceNanos >= 0;
  }

  private void logExcused(long millis, String why) {
    long now = nanoTime.getAsLong();
    if (excusedLogged && now - excusedLoggedNanos < EXCUSED_LOG_EVERY_NANOS) {
      return;
    }
    excusedLogged = true;
    excusedLoggedNanos = now;
    LOG.info("{}: a 429 to a call sent within {} ms after calls may have been bunched ({}): "
        + "paused {} ms, its rate not cut (logged at most every {} s)", name,
        TimeUnit.NANOSECONDS.toMillis(LATE_BEFORE_CALL_NANOS), why, millis,
        TimeUnit.NANOSECONDS.toSeconds(EXCUSED_LOG_EVERY_NANOS));
  }

  /** Claims no more slots and starts no more calls; calls in flight finish on their own. */
  @Override
  public synchronized void close() {
    schedule.close();
  }
}
