package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.intake.OverflowPause;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.intake.ReadyRecordCheck;
import io.sluice.dispatcher.dispatch.intake.RecordIntake;
import io.sluice.dispatcher.dispatch.lane.LaneSchedule;
import io.sluice.dispatcher.dispatch.lane.DispatcherPace;
import io.sluice.dispatcher.dispatch.lane.PaceGovernor;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OffsetCommits;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.offsets.PartitionTakeover;
import io.sluice.dispatcher.dispatch.offsets.PendingDeliveries;
import io.sluice.dispatcher.dispatch.settlement.CallJudge;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.LearningLimitSource;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PausedEntries;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.config.DispatcherConfig;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TierConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher role: reads {@code sluice.ready}, queues each event in its provider's
 * {@link ProviderLane}, and settles it after its call (delivered, retried through the ladder, or
 * dead), committing each partition only up to its first unsettled record.
 *
 * <h2>Threads</h2>
 * One thread (this runnable) owns the consumer and the {@link OffsetLedger}s: it reads, queues,
 * applies settlements and commits. A timer thread fires leak slots; provider calls and Kafka
 * acknowledgements complete on their clients' threads and hand settled entries back through a
 * concurrent queue. Nothing blocks per event: the consumer never waits for a provider, which is
 * what keeps a slow provider from holding up a fast one (its buffer overflows into the ladder).
 *
 * <h2>What is committed</h2>
 * An event is settled when the record that takes it on (an outcome, a deferral, a dead letter) is
 * acknowledged by Kafka. A crash before that leaves the offset uncommitted and the next owner reads
 * the event again, so provider calls are at least once; each carries the event id as its
 * {@code Idempotency-Key}. A revoked partition's queued events are dropped (the new owner reads
 * them again); its calls in flight are waited for, a few seconds at most, before it is handed over
 * ({@code handOver}), and settlements that come later are ignored.
 *
 * <p>The committed offset stops at the first unsettled record, which fair queueing may hold for a
 * long time; so each commit's metadata also lists the offsets settled beyond it
 * ({@link OffsetLedger#settledAhead()}, {@link SettledOffsetsCodec}), and the partition's next
 * owner skips those. A crash then repeats only the calls in flight and those settled since the
 * last commit, not everything behind the oldest held record.
 *
 * <p>Settled is later than delivered, and a commit needs the group coordinator: while the broker is
 * away calls go on and nothing commits, and after its restart the group forgets its members and
 * another instance takes the partition from the last commit that went through. So the calls
 * delivered and the records settled beyond the commit are also written to a {@link DeliveredLog}
 * in Redis, once per partition per commit round; a new owner reads it when a partition is
 * assigned, skips the settled records and writes the outcome of the delivered ones instead of
 * calling them again.
 *
 * <h2>Records the gate would not have written</h2>
 * Each record is checked ({@link ReadyRecordCheck}) before it is queued; a malformed one is
 * dead-lettered at once and the loop goes on.
 *
 * <h2>Parts</h2>
 * What becomes of a record read is {@link RecordIntake}'s to say, and of a call's result
 * {@link CallJudge}'s; the owned partitions' books are {@link OwnedPartitions}, committed by
 * {@link OffsetCommits}; deliveries wait for the delivered log in {@link PendingDeliveries};
 * each provider's calls are its {@link ProviderLane}'s; the events an operator's pause covers
 * wait in {@link io.sluice.dispatcher.pause.PausedEntries} ({@link #applyPauses}). This class owns
 * the consumer and carries out what they decide.
 */
public final class Dispatcher implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final int OVERFLOWS_TO_PAUSE = 32;
  /**
   * How often settled offsets are committed. A crash calls again what settled since the last
   * commit (the commit's metadata covers everything before it): at 100 ms, a tenth of a second of
   * calls, 20 at 200 calls/s. A commit is one small request to the group coordinator.
   */
  private static final long COMMIT_EVERY_MILLIS = 100;
  private static final Duration COMMITTED_TIMEOUT = Duration.ofSeconds(10);

  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> producer;
  private final SluiceConfig config;
  private final Topics topics;
  private final Clock clock;
  /**
   * The monotonic clock of every wait and of the lanes' slots. The real one: nothing measured
   * here is tested through this class, and its constructors are public API.
   */
  private final java.util.function.LongSupplier nanoTime = System::nanoTime;
  private final DispatchListener listener;
  /** A call's verdict and its lane's pause. */
  private final CallJudge judge;
  /** Learns each provider's limits from its answers' headers (and paces the leak by them). */
  private final LimitLearner learner;
  private final ScheduledThreadPoolExecutor timer;
  /**
   * How fast every lane claims, as a share of its rate: less than 1 while this process cannot
   * keep its slots on time ({@link PaceGovernor}).
   */
  private final DispatcherPace pace = new DispatcherPace(nanoTime);
  private final SettlementWriter writer;
  private final Map<String, ProviderLane> lanes = new LinkedHashMap<>();
  /** The lanes of tenants' own endpoints (providers with {@code endpoints: perTenant}). */
  private final TenantEndpoints endpoints;
  /** The configuration now (a reload replaces it): which endpoint each tenant has. */
  private volatile SluiceConfig current;
  private final Map<String, Provider> providers;
  /** The partitions owned now, their offsets and their last confirmed commits. */
  private final OwnedPartitions owned = new OwnedPartitions();
  private final ConcurrentLinkedQueue<DispatchEntry> settled = new ConcurrentLinkedQueue<>();
  /** Entries whose settlement was given up because their partition moved: held no longer. */
  private final ConcurrentLinkedQueue<DispatchEntry> dropped = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  /** Replaced whole by a configuration reload (tenants' tiers, providers' maxCost). */
  private volatile RecordIntake intake;
  private final ReadBudget held;
  /** Whether {@link #held} has paused all reading (it resumes at half its limits). */
  /** Every partition paused: the bytes held are past {@code dispatcher.bufferBytes}. */
  private boolean bytesHeld;
  /** Partitions paused for holding more than their share of unsettled records. */
  private final Set<TopicPartition> recordsHeld = new HashSet<>();
  /** Partitions not read for now because all they brought overflowed ({@link OverflowPause}). */
  private final OverflowPause<TopicPartition> overflowPause;
  /** Commits the settled offsets: in rounds, on shutdown, on revocation. */
  private final OffsetCommits commits;
  /** What a partition's new assignment starts from: the last commit, what was settled and delivered beyond it. */
  private final PartitionTakeover takeover;
  /** Records skipped because the previous owner's commit said they were settled. */
  private volatile long skipped;
  /**
   * Calls delivered beyond the commit, outside Kafka ({@link DeliveredLog}): a partition's next
   * owner, or this instance after a broker restart, writes their outcome instead of calling again.
   */
  private final DeliveredLog deliveredLog;
  /** Deliveries not yet written to the log, from the providers' threads. */
  private final PendingDeliveries deliveries = new PendingDeliveries(COMMIT_EVERY_MILLIS);
  /** Records whose call a previous owner (or this instance) had delivered: outcome written, not called. */
  private volatile long skippedAsDelivered;
  private volatile boolean abrupt;
  private volatile boolean consuming;
  /** The operator's pauses in force ({@link #applyPauses}). */
  private final java.util.function.Supplier<PauseRules> pauses;
  /** Events a pause stops, held until it ends or their deadline does. */
  private final PausedEntries<DispatchEntry> paused;
  /** {@link #paused}'s counts per provider, for gauges on other threads. */
  private volatile Map<String, Integer> heldByPause = Map.of();
  /** The rules the lanes' queues were last sorted by. */
  private PauseRules pausesApplied = PauseRules.NONE;

  /** How long a new owner waits for the delivered log of the partitions it gets. */
  private static final Duration DELIVERED_LOG_TIMEOUT = Duration.ofSeconds(2);
  /** Longest wait at a hand-over for the revoked partitions' calls in flight (rebalances wait). */
  private static final long HAND_OVER_CALLS_MILLIS = 5_000;
  /** Longest wait at a hand-over for the delivered log's write. */
  private static final long HAND_OVER_LOG_MILLIS = 1_000;

  /** A dispatcher wired as {@code wiring} says; {@link #run} starts it. */
  public Dispatcher(DispatcherWiring wiring) {
    SluiceConfig config = wiring.config();
    Consumer<byte[], byte[]> consumer = wiring.consumer();
    Producer<byte[], byte[]> producer = wiring.producer();
    Map<String, Provider> providers = wiring.providers();
    LeakyBucket leak = wiring.leak();
    LimitLearner learner = wiring.learner();
    Function<String, LimitSource> limitSources = wiring.limitSources();
    DeliveredLog deliveredLog = wiring.deliveredLog();
    Clock clock = wiring.clock();
    DispatchListener listener = wiring.listener();
    this.pauses = wiring.pauses();
    this.learner = learner;
    learner.bound(answerBounds(config));
    this.config = config;
    this.deliveredLog = deliveredLog;
    this.consumer = consumer;
    this.producer = producer;
    this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    this.clock = clock;
    this.listener = listener;
    DispatcherConfig d = config.dispatcher();
    this.judge = new CallJudge(new FeedbackPolicy(config.maxAttempts(),
        new Backoff(d.backoffBase(), d.backoffCap())), d.backoffBase());
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "sluice-dispatch-timer");
      t.setDaemon(true);
      return t;
    });
    this.timer.setRemoveOnCancelPolicy(true);
    this.writer = new SettlementWriter(producer, topics, clock, settled::add, dropped::add, timer,
        1000, owned::isCurrent);
    this.providers = Map.copyOf(providers);
    this.commits = new OffsetCommits(consumer, owned, clock, COMMIT_EVERY_MILLIS);
    this.takeover = new PartitionTakeover(consumer, deliveredLog, COMMITTED_TIMEOUT,
        DELIVERED_LOG_TIMEOUT, nanoTime);
    Map<String, Double> weights = new HashMap<>();
    for (Map.Entry<String, TierConfig> t : config.tiers().entrySet()) {
      weights.put(t.getKey(), t.getValue().weight());
    }
    int buffers = 0;
    this.current = config;
    this.endpoints = new TenantEndpoints(new TenantEndpoints.Parts(this.providers, leak, learner,
        timer, this::settle, this::cannotFit,
        (e, detail) -> deadNow(e, Reason.ENDPOINT_DISABLED, detail), listener, clock, nanoTime,
        TimeUnit.NANOSECONDS.toMicros(d.lookahead().toNanos()), d.bufferSize(), pace), weights,
        wiring.tenants());
    for (Map.Entry<String, ProviderConfig> p : config.providers().entrySet()) {
      Provider provider = providers.get(p.getKey());
      if (provider == null) {
        throw new IllegalArgumentException("no provider implementation for " + p.getKey());
      }
      ProviderConfig pc = p.getValue();
      if (pc.perTenant()) {
        buffers += d.bufferSize(); // its endpoints' lanes are opened by their first events
        continue;
      }
      // A lease outlives its slot by the call's timeout and a second: a call still running then
      // has been given up by the HTTP client.
      long leaseMicros = TimeUnit.NANOSECONDS.toMicros(pc.timeout().toNanos()) + 1_000_000;
      long lookaheadMicros = TimeUnit.NANOSECONDS.toMicros(d.lookahead().toNanos());
      LimitSource limits = new LearningLimitSource(p.getKey(), limitSources.apply(p.getKey()), learner);
      lanes.put(p.getKey(), new ProviderLane(
          new ProviderLane.Settings(p.getKey(), leaseMicros, pc.maxInFlight(), lookaheadMicros, weights,
              d.bufferSize()),
          new ProviderLane.Calls(limits, provider, leak),
          new ProviderLane.Hooks(timer, this::settle, listener, this::cannotFit, nanoTime, pace)));
      buffers += d.bufferSize();
    }
    this.intake = new RecordIntake(new ReadyRecordCheck(config));
    // Records read but not settled are held in memory (queued, in flight, or being written); past
    // this many the consumer pauses until settlements catch up.
    this.held = new ReadBudget(config.providers().keySet(), 2 * buffers + 1000, d.bufferBytes());
    // A partition pauses after a few dozen arrivals in a row met a full buffer (a poll brings up to
    // 500), for at most the ladder's smallest step.
    this.overflowPause = new OverflowPause<>(OVERFLOWS_TO_PAUSE, config.ladder().get(0).toNanos());
    this.paused = new PausedEntries<>(d.bufferSize(), e -> e.event().provider(),
        e -> e.event().tenant(), e -> e.event().deadline());
  }

  /**
   * Takes a reloaded configuration (see {@code LiveConfig}): tier weights for every lane's fair
   * queue from now on, and the record check (tenants' tiers, providers' {@code maxCost}) for every
   * record read from now on. Provider limits reach the lanes through their {@link LimitSource}.
   * Entries already queued keep the tier they were queued under.
   */
  public void reload(SluiceConfig next) {
    Map<String, Double> weights = new HashMap<>();
    next.tiers().forEach((tier, t) -> weights.put(tier, t.weight()));
    for (ProviderLane lane : lanes.values()) {
      lane.reweigh(weights);
    }
    endpoints.reweigh(weights);
    current = next;
    intake = new RecordIntake(new ReadyRecordCheck(next));
    learner.bound(answerBounds(next));
  }

  /** What each provider's answers may do ({@code learn}, {@code learnedFloor}, {@code maxRetryAfter}). */
  private static Map<String, io.sluice.config.AnswerBounds> answerBounds(
      SluiceConfig config) {
    Map<String, io.sluice.config.AnswerBounds> bounds = new HashMap<>();
    config.providers().forEach((name, p) -> bounds.put(name, p.answers()));
    return bounds;
  }

  /** What this dispatcher learned about its providers' limits. */
  public LimitLearner learner() {
    return learner;
  }

  @Override
  public void run() {
    consumer.subscribe(List.of(topics.ready()), new Rebalance());
    consuming = true;
    try {
      while (running.get()) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
        for (ConsumerRecord<byte[], byte[]> record : records) {
          accept(record);
        }
        applyPauses();
        applySettlements();
        commits.commitIfDue();
        logDeliveries(deliveries.takeIfDue(clock.millis()));
        applyBackpressure();
        endpoints.tick(clock.millis());
        pace.tick();
      }
    } catch (WakeupException e) {
      if (running.get()) {
        throw e;
      }
    } catch (RuntimeException e) {
      LOG.error("dispatcher: stopped by an unexpected error (its supervisor starts it again)", e);
      throw e;
    } finally {
      consuming = false;
      if (abrupt) {
        stopAbruptly();
      } else {
        stopCleanly();
      }
    }
  }

  /** Queued events per provider (gauges). */
  public Map<String, Integer> buffered() {
    Map<String, Integer> depths = new LinkedHashMap<>();
    lanes.forEach((name, lane) -> depths.put(name, lane.queued()));
    depths.putAll(endpoints.queued());
    return depths;
  }

  /** Calls in flight per provider (gauges). */
  public Map<String, Integer> inFlight() {
    Map<String, Integer> calls = new LinkedHashMap<>();
    lanes.forEach((name, lane) -> calls.put(name, lane.inFlight()));
    calls.putAll(endpoints.inFlight());
    return calls;
  }

  /**
   * The share of their rates every lane claims now: 1, or less while this process cannot keep its
   * slots on time ({@link PaceGovernor}; the gauge {@code sluice_dispatch_pace_factor}).
   */
  public double paceFactor() {
    return pace.factor();
  }

  /** Events held by a pause per provider (providers holding none left out). */
  public Map<String, Integer> heldByPause() {
    return heldByPause;
  }

  /** Partitions of {@code sluice.ready} this instance owns now. */
  public int assignedPartitions() {
    return owned.count();
  }

  /** Records not called again because the previous owner's last commit said they were settled. */
  public long skippedAsSettled() {
    return skipped;
  }

  /** Records not called again because the delivered log said a call of theirs had been accepted. */
  public long skippedAsDelivered() {
    return skippedAsDelivered;
  }

  /**
   * Empty while the dispatcher can do its work; else what it cannot cure by itself: a settlement
   * Kafka refuses permanently (not authorised, a fatal producer error...). The dispatcher role
   * reports unhealthy meanwhile.
   */
  public Optional<String> problem() {
    return writer.problem();
  }

  /** True while the consumer loop runs. */
  public boolean isRunning() {
    return consuming;
  }

  /**
   * Stops cleanly: no new calls, calls in flight finish (within the providers' timeouts), their
   * settlements are written and committed, queued events are left for the next owner.
   */
  @Override
  public void close() {
    running.set(false);
    consumer.wakeup();
  }

  /**
   * Stops as a crash would: nothing more is written or committed, and the clients are closed at
   * once. Whatever was read and not committed is read again by the partitions' next owner.
   */
  public void halt() {
    abrupt = true;
    writer.close();
    running.set(false);
    consumer.wakeup();
  }

  /** Takes one record read ({@link RecordIntake}): skips, dead-letters, writes, or queues it. */
  private void accept(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    OwnedPartitions.Assignment assignment = owned.get(tp);
    if (assignment == null) {
      return; // not ours (a record from a poll that raced a revocation)
    }
    RecordIntake.Action action = intake.admit(record, assignment, clock.instant());
    if (action instanceof RecordIntake.SettledBefore) {
      skipped++;
      commits.settled();
      return;
    }
    if (action instanceof RecordIntake.ReadAgain again) {
      LOG.warn("dispatcher: {}@{} read again by the same assignment (its position went back); "
          + "skipped, it was taken at its first read", tp, again.offset());
      return;
    }
    if (action instanceof RecordIntake.Malformed m) {
      held.hold(m.entry());
      deadNow(m.entry(), m.reason(), m.detail()); // the dead letter names its source
      return;
    }
    if (action instanceof RecordIntake.DeliveredBefore d) {
      held.hold(d.entry());
      writer.delivered(d.entry(), d.delivered().status(), d.delivered().attempts());
      skippedAsDelivered++;
      return;
    }
    if (action instanceof RecordIntake.Expired x) {
      held.hold(x.entry());
      deadNow(x.entry(), Reason.EXPIRED, x.detail());
      return;
    }
    DispatchEntry entry = ((RecordIntake.Queue) action).entry();
    // Judged before this entry is counted: does its provider's share have room for it?
    boolean fits = held.fits(entry);
    held.hold(entry);
    String provider = entry.event().provider();
    if (!fits) {
      ProviderLane own = lanes.get(provider);
      overflow(provider, own == null ? 0 : own.drainPerSecond(), entry, "provider " + provider
          + " holds its share of dispatcher.bufferBytes");
      overflowPause.overflowed(tp, provider, nanoTime.getAsLong());
      return;
    }
    if (pauses.get().holds(provider, entry.event().tenant())) {
      holdPaused(entry);
      return;
    }
    ProviderLane lane = laneFor(entry);
    if (lane == null) {
      return; // settled without a lane: no endpoint, a disabled one, or no lane free
    }
    Optional<DispatchEntry> evicted = lane.offer(entry);
    evicted.ifPresent(e -> overflow(provider, lane.drainPerSecond(), e,
        "provider " + lane.name() + " buffer full (" + config.dispatcher().bufferSize()
            + " events)"));
    if (evicted.isPresent()) {
      overflowPause.overflowed(tp, lane.name(), nanoTime.getAsLong());
    } else {
      overflowPause.queued(tp);
    }
  }

  /**
   * The buffer is full and this entry would be served last: it goes round the ladder and comes
   * back when the buffer has had time to drain ({@code bufferSize} over what the lane achieves,
   * at least the smallest step), at most the provider's {@code maxRetryAfter}: the longest an
   * answer may pause it, and so the longest a pace its answers lowered may be taken to last.
   * Not an attempt: the provider never saw it.
   */
  private void overflow(String provider, double drainPerSecond, DispatchEntry entry, String why) {
    long wait = LaneSchedule.overflowWaitMillis(config.dispatcher().bufferSize(),
        drainPerSecond, config.ladder().get(0).toMillis(),
        learner.bounds(provider).maxRetryAfterMillis());
    writer.defer(entry, Reason.OVERFLOW, why + "; back in about " + wait + " ms", wait,
        entry.attempts());
    listener.deferred(provider, entry.tier(), Reason.OVERFLOW);
  }

  /**
   * The lane an entry goes to: its provider's, or for a per-tenant provider its tenant's
   * endpoint's ({@link TenantEndpoints}). Null when the entry was settled instead: dead-lettered
   * ({@code no_endpoint}, {@code endpoint_disabled}) or deferred (every endpoint lane busy).
   */
  private ProviderLane laneFor(DispatchEntry entry) {
    String provider = entry.event().provider();
    ProviderLane own = lanes.get(provider);
    if (own != null) {
      return own;
    }
    SluiceConfig now = current;
    ProviderConfig pc = now.providers().get(provider);
    if (pc == null || !pc.perTenant()) {
      deadNow(entry, Reason.UNKNOWN_PROVIDER, "provider " + provider + " has no lane on this "
          + "dispatcher (added by a reload: it starts with the next start)");
      return null;
    }
    TenantEndpoints.Route route = endpoints.route(entry, pc, now);
    if (route instanceof TenantEndpoints.Queue q) {
      return q.lane();
    }
    if (route instanceof TenantEndpoints.Dead dead) {
      deadNow(entry, dead.reason(), dead.detail());
      return null;
    }
    long wait = config.ladder().get(0).toMillis();
    writer.defer(entry, Reason.OVERFLOW, ((TenantEndpoints.Full) route).detail() + "; back in "
        + "about " + wait + " ms", wait, entry.attempts());
    listener.deferred(provider, entry.tier(), Reason.OVERFLOW);
    return null;
  }

  /** The provider's lanes and the live lanes of tenants' endpoints. */
  private List<ProviderLane> allLanes() {
    List<ProviderLane> all = new ArrayList<>(lanes.values());
    all.addAll(endpoints.lanes());
    return all;
  }

  /** Events queued in the lane of this name (a provider's, or a tenant's endpoint's). */
  private int queuedOf(String lane) {
    ProviderLane own = lanes.get(lane);
    return own != null ? own.queued() : endpoints.queuedOf(lane);
  }

  /**
   * An entry dearer than its provider's smallest cost window now allows (a learned or reloaded
   * limit is lower than the configured one the gate checked): it goes round the ladder's longest
   * step, by which time the learned limit may have faded or grown. Not an attempt: the provider
   * never saw it, and its deadline still ends it.
   */
  private void cannotFit(DispatchEntry entry, String why) {
    long wait = config.ladder().get(config.ladder().size() - 1).toMillis();
    writer.defer(entry, Reason.RATE_LIMITED, why + "; back in about " + wait + " ms", wait,
        entry.attempts());
    listener.deferred(entry.event().provider(), entry.tier(), Reason.RATE_LIMITED);
  }

  /**
   * Carries out the pauses ({@link PauseRules}): takes the events a new pause covers out of their
   * lanes (their calls have not started; the slots claimed for them go unused), gives back to
   * their lanes the events a lifted pause held, and ends as expired the held events whose deadline
   * passed. Every turn of the consumer loop; {@link PausedEntries#sort} looks at the held events
   * only when the rules changed, or once a second.
   */
  private void applyPauses() {
    PauseRules rules = pauses.get();
    // New arrivals are held as they are read; what was queued before a change is looked at once.
    if (!rules.equals(pausesApplied)) {
      pausesApplied = rules;
      for (ProviderLane lane : allLanes()) {
        if (!rules.concerning(EndpointListener.provider(lane.name())).isEmpty()) {
          lane.drop(e -> rules.holds(e.event().provider(), e.event().tenant()))
              .forEach(this::holdPaused);
        }
      }
    }
    PausedEntries.Sorted<DispatchEntry> sorted = paused.sort(rules, clock.instant());
    sorted.expired().forEach(e -> deadNow(e, Reason.EXPIRED,
        "deadline " + e.event().deadline() + " passed while paused"));
    for (DispatchEntry e : sorted.resumed()) {
      ProviderLane lane = laneFor(e);
      if (lane != null) {
        lane.offer(e).ifPresent(evicted -> overflow(e.event().provider(), lane.drainPerSecond(),
            evicted, "provider " + lane.name() + " buffer full ("
                + config.dispatcher().bufferSize() + " events)"));
      }
    }
    heldByPause = paused.heldByProvider();
  }

  /**
   * Holds an event a pause covers. Past the provider's share of held events it goes round the
   * ladder's longest step instead, not an attempt, and is looked at again when it comes back.
   */
  private void holdPaused(DispatchEntry entry) {
    if (!paused.hold(entry)) {
      long wait = config.ladder().get(config.ladder().size() - 1).toMillis();
      writer.defer(entry, Reason.OVERFLOW, "paused by an operator, and "
          + config.dispatcher().bufferSize() + " events of provider " + entry.event().provider()
          + " are held already; back in about " + wait + " ms", wait, entry.attempts());
      listener.deferred(entry.event().provider(), entry.tier(), Reason.OVERFLOW);
    }
  }

  private void deadNow(DispatchEntry entry, Reason reason, String detail) {
    writer.dead(entry, reason, detail, entry.attempts());
    listener.dead(entry.event() == null ? null : entry.event().provider(), entry.tier(), reason);
  }

  /** The provider's answer's status, for the event's log line; null if it did not answer. */
  private static Integer status(ProviderResult result) {
    return result instanceof ProviderResult.Answered a ? a.status() : null;
  }

  /** A call came back: judge it and write the record that settles the event. */
  private void settle(ProviderLane lane, DispatchEntry entry, ProviderResult result,
      long claimedAtMicros) {
    long maxRetryAfter = learner.bounds(lane.name()).maxRetryAfterMillis();
    CallJudge.Judgement judged = judge.judge(result, entry.attempts(), entry.event().deadline(),
        clock.instant(), () -> ThreadLocalRandom.current().nextDouble(), maxRetryAfter);
    judged.askedMillis().ifPresent(asked -> learner.noteBound(lane.name(),
        LimitLearner.Bound.RETRY_AFTER, "an answer (status "
            + ((ProviderResult.Answered) result).status() + "; Retry-After: "
            + LimitLearner.cut(((ProviderResult.Answered) result).retryAfter()) + ") asked for "
            + asked + " ms; paused " + maxRetryAfter + " ms (maxRetryAfter)"));
    // Before the settlement is written: no call of the lane may start meanwhile.
    judged.pauseMillis().ifPresent(millis -> lane.throttle(millis, claimedAtMicros));
    if (result instanceof ProviderResult.CredentialUnavailable) {
      // The lane's next calls would find no token either: they wait, spending no slot.
      lane.hold(FeedbackPolicy.CREDENTIAL_WAIT_MILLIS);
    }
    Verdict verdict = judged.verdict();
    if (verdict instanceof Verdict.Delivered d) {
      deliveries.add(entry.partition(),
          new DeliveredLog.Delivered(entry.offset(), d.status(), entry.attempts() + 1));
      if (result instanceof ProviderResult.Answered a) {
        writer.delivered(entry, d.status(), entry.attempts() + 1, a.latencyMillis(),
            a.captured().headers(), a.captured().body());
      } else {
        writer.delivered(entry, d.status(), entry.attempts() + 1);
      }
      listener.delivered(entry.event().provider(), entry.tier());
    } else if (verdict instanceof Verdict.Retry r) {
      writer.defer(entry, r.reason(), r.detail(), r.waitMillis(), r.attempts(), status(result));
      listener.deferred(entry.event().provider(), entry.tier(), r.reason());
    } else {
      Verdict.Dead dead = (Verdict.Dead) verdict;
      writer.dead(entry, dead.reason(), dead.detail(), dead.attempts(), status(result));
      listener.dead(entry.event().provider(), entry.tier(), dead.reason());
    }
    // Every answer may announce the provider's limits; one saying nothing remains holds the
    // provider (for every instance, through the leak) without cutting its rate. After the
    // verdict: a 429's pause must not wait for the parsing.
    learner.answered(lane.name(), result, entry.event().cost())
        .ifPresent(holdMillis -> lane.throttle(holdMillis, 0));
  }

  private void applySettlements() {
    DispatchEntry e;
    while ((e = settled.poll()) != null) {
      held.release(e); // settled, whichever assignment read it: its bytes are no longer held
      // For the partition's next owner, should the commit not go through (DeliveredLog).
      deliveries.add(e.partition(), DeliveredLog.Delivered.settledAt(e.offset()));
      if (owned.settle(e)) {
        commits.settled();
      }
    }
    while ((e = dropped.poll()) != null) {
      held.release(e); // its new owner settles it; its bytes are not ours to hold
    }
  }

  /**
   * Writes a batch of deliveries ({@link PendingDeliveries}) to the {@link DeliveredLog}, one
   * write per partition. A partition no longer ours is written too (its new owner may not have read that far), without
   * dropping anything.
   */
  private List<CompletableFuture<Void>> logDeliveries(
      Map<TopicPartition, List<DeliveredLog.Delivered>> byPartition) {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    byPartition.forEach((tp, list) -> writes.add(
        deliveredLog.record(tp, owned.confirmedCommit(tp), list).toCompletableFuture()));
    return writes;
  }

  private static void awaitQuietly(List<CompletableFuture<Void>> writes, long millis) {
    try {
      CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.debug("dispatcher: delivered log not written at the hand-over ({})", e.toString());
    }
  }

  /**
   * Pauses reading a partition while it holds too much unsettled in memory, every partition while
   * the bytes held are, and resumes it ({@link ReadBudget}).
   */
  private void applyBackpressure() {
    Set<TopicPartition> assigned = owned.partitions();
    bytesHeld = held.pauseForBytes(bytesHeld);
    recordsHeld.retainAll(assigned);
    int endpointLanes = endpoints.liveLanes();
    for (TopicPartition tp : assigned) {
      if (held.pausePartition(recordsHeld.contains(tp), owned.get(tp).offsets().waiting(),
          endpointLanes, assigned.size())) {
        recordsHeld.add(tp);
      } else {
        recordsHeld.remove(tp);
      }
    }
    overflowPause.retainOnly(assigned);
    Set<TopicPartition> want = bytesHeld ? new HashSet<>(assigned)
        : overflowPause.paused(nanoTime.getAsLong(), this::queuedOf,
            config.dispatcher().bufferSize() / 2);
    want.addAll(recordsHeld);
    want.retainAll(assigned);
    Set<TopicPartition> paused = consumer.paused();
    if (!paused.equals(want)) {
      Set<TopicPartition> resume = new HashSet<>(paused);
      resume.removeAll(want);
      consumer.resume(resume);
      consumer.pause(want);
    }
  }

  private void stopCleanly() {
    List<ProviderLane> all = allLanes();
    all.forEach(ProviderLane::close);
    long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(longestTimeoutMillis() + 5000);
    try {
      while (all.stream().anyMatch(l -> l.inFlight() > 0)
          && nanoTime.getAsLong() - deadline < 0) {
        applySettlements();
        // Shutdown only: wait for the last calls to come back, checking every 10 ms.
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      producer.flush();
      applySettlements();
      commits.commitNow();
    } catch (RuntimeException e) {
      LOG.warn("dispatcher: could not commit on shutdown ({}); the next owner re-reads from the "
          + "last commit", e.toString());
    } finally {
      writer.close();
      timer.shutdownNow();
      endpoints.close();
      closeQuietly(consumer::close);
      closeQuietly(producer::close);
      providers.values().forEach(p -> closeQuietly(p::close));
    }
  }

  private void stopAbruptly() {
    allLanes().forEach(ProviderLane::close);
    timer.shutdownNow();
    endpoints.close();
    closeQuietly(() -> producer.close(Duration.ZERO));
    closeQuietly(() -> consumer.close(Duration.ZERO));
    providers.values().forEach(p -> closeQuietly(p::close));
  }

  private long longestTimeoutMillis() {
    return config.providers().values().stream()
        .mapToLong(p -> p.timeout().toMillis()).max().orElse(0);
  }

  private static void closeQuietly(Runnable close) {
    try {
      close.run();
    } catch (RuntimeException e) {
      LOG.debug("dispatcher: close failed", e);
    }
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (abrupt) {
        return;
      }
      handOver(partitions);
      applySettlements();
      commits.commitRevoked(partitions);
      // What was delivered and not yet logged goes to the log before the next owner reads it.
      awaitQuietly(logDeliveries(deliveries.takeNow(clock.millis())), HAND_OVER_LOG_MILLIS);
      forget(partitions);
    }

    /**
     * Before a partition goes to its next owner: no new call starts for it (its queue is dropped,
     * the next owner reads those records again), and the calls in flight are waited for, at most
     * {@link #HAND_OVER_CALLS_MILLIS}, so that what they delivered is in the log and the commit the
     * next owner starts from. Without this, every rebalance (each member joining or leaving)
     * called again whatever was in flight, however long the calls took.
     */
    private void handOver(Collection<TopicPartition> partitions) {
      Set<TopicPartition> gone = Set.copyOf(partitions);
      for (ProviderLane lane : allLanes()) {
        lane.drop(e -> gone.contains(e.partition())).forEach(held::release);
      }
      paused.removeIf(e -> gone.contains(e.partition())).forEach(held::release);
      long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(
          Math.min(HAND_OVER_CALLS_MILLIS, longestTimeoutMillis() + 500));
      try {
        for (ProviderLane lane : allLanes()) {
          if (!lane.awaitCalls(gone, deadline)) {
            LOG.info("dispatcher: calls of {} still in flight at the hand-over; the next owner may call "
                + "them again", gone);
            break;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      Map<TopicPartition, PartitionTakeover.Inherited> inherited = takeover.takeOver(partitions);
      for (TopicPartition tp : partitions) {
        owned.assign(tp, inherited.get(tp));
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      forget(partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
      Set<TopicPartition> gone = Set.copyOf(partitions);
      owned.forget(partitions, takeover::lost);
      for (ProviderLane lane : allLanes()) {
        lane.drop(e -> gone.contains(e.partition())).forEach(held::release);
      }
      paused.removeIf(e -> gone.contains(e.partition())).forEach(held::release);
    }
  }
}
