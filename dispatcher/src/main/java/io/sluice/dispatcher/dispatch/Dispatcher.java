package io.sluice.dispatcher.dispatch;

import io.sluice.config.DispatcherConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.intake.OverflowPause;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.lane.DispatcherPace;
import io.sluice.dispatcher.dispatch.lane.PaceGovernor;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.offsets.OffsetCommits;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.offsets.PartitionTakeover;
import io.sluice.dispatcher.dispatch.settlement.CallJudge;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.fair.PriorityOrder;
import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher role: reads {@code sluice.ready} and {@code sluice.ready.high}, queues each event in its provider's
 * {@link ProviderLane}, and settles it after its call (delivered, retried, or dead), committing
 * each partition only up to its first unsettled record.
 *
 * <h2>Threads</h2>
 * One thread (this runnable) owns the consumer and the partitions' books: it reads, queues,
 * applies settlements and commits. A timer thread fires leak slots; provider calls and Kafka
 * acknowledgements complete on their clients' threads and hand settled entries back through a
 * concurrent queue. Nothing blocks per event: the consumer never waits for a provider, which is
 * what keeps a slow provider from holding up a fast one (its buffer overflows into the ladder).
 *
 * <h2>What is committed</h2>
 * An event is settled when the record that takes it on (an outcome, a deferral, a dead letter) is
 * acknowledged by Kafka; each partition is committed up to its first unsettled record, with the
 * offsets settled beyond it in the commit's metadata ({@link Books} says why and how).
 *
 * <h2>Rooms</h2>
 * One turn of the loop: poll, take each record ({@link Arrivals}),
 * route it to its lane ({@link Lanes}), apply pauses ({@link PauseKeeper}) and settlements
 * ({@link Books}), commit, and pause or resume reading ({@link Backpressure}). A call's result is
 * settled by the {@link Settler} on the thread it completed on, which hands its lane orders
 * (pause, hold) that the lane carries out itself: nothing calls back up into this class. Entries
 * that get no call now are settled by {@link WithoutCall}; partitions moving are
 * {@link HandOver}'s. This class owns the consumer and the clocks, and wires the rooms.
 */
public final class Dispatcher implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  private static final Duration POLL = Duration.ofMillis(100);
  /** A partition pauses after this many arrivals in a row met a full buffer (a poll brings 500). */
  private static final int OVERFLOWS_TO_PAUSE = 32;
  private static final Duration COMMITTED_TIMEOUT = Duration.ofSeconds(10);
  /** How long a new owner waits for the delivered log of the partitions it gets. */
  private static final Duration DELIVERED_LOG_TIMEOUT = Duration.ofSeconds(2);
  /**
   * How often a new owner reads the delivered log again for the records it holds waiting for
   * their previous owner's outcome ({@link InheritedCalls}): the log hears of an acknowledgement
   * within 100 ms ({@link Books}).
   */
  private static final Duration RECHECK = Duration.ofMillis(250);

  private final Consumer<byte[], byte[]> consumer;
  private final Producer<byte[], byte[]> producer;
  private final SluiceConfig config;
  private final Topics topics;
  /** The wall clock: timestamps and deadlines. */
  private final Clock clock;
  /** The monotonic clock of every wait, slot and pause. */
  private final LongSupplier nanoTime;
  private final DispatchListener listener;
  /** Learns each provider's limits from its answers' headers (and paces the leak by them). */
  private final LimitLearner learner;
  private final ScheduledThreadPoolExecutor timer;
  /**
   * How fast every lane claims, as a share of its rate: less than 1 while this process cannot
   * keep its slots on time ({@link PaceGovernor}).
   */
  private final DispatcherPace pace;
  private final SettlementWriter writer;
  /**
   * The one thread that hands settlements to the producer, whose {@code send} may block while the
   * broker is away: never a provider's answer thread ({@link SettlementWriter}).
   */
  private final ExecutorService sender;
  /** Whether calls may start: not while settlements go unacknowledged ({@link CallsWait}). */
  private final CallsWait callsWait;
  private final Lanes lanes;
  private final Map<String, Provider> providers;
  /** The partitions owned now, their offsets and their last confirmed commits. */
  private final OwnedPartitions owned = new OwnedPartitions();
  private final Books books;
  private final AtomicBoolean running = new AtomicBoolean(true);
  /** Records and bytes read and not yet settled. */
  private final ReadBudget held;
  private final Backpressure backpressure;
  private final PauseKeeper pauses;
  /** Expires and parks what waits in the lanes, once a second. */
  private final LaneSweep sweep;
  /** Takes each record read. */
  private final Arrivals arrivals;
  /** Records whose call a previous owner delivered, waiting for its outcome. */
  private final InheritedCalls inherited;
  /** What happens when partitions move. */
  private final HandOver handOver;
  private volatile boolean abrupt;
  private volatile boolean consuming;

  /** A dispatcher wired as {@code wiring} says; {@link #run} starts it. */
  public Dispatcher(DispatcherWiring wiring) {
    this.config = wiring.config();
    this.consumer = wiring.consumer();
    this.producer = wiring.producer();
    this.learner = wiring.learner();
    this.clock = wiring.clock();
    this.nanoTime = wiring.nanoTime();
    this.listener = wiring.listener();
    this.providers = Map.copyOf(wiring.providers());
    learner.bound(LimitLearner.boundsOf(config));
    this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    this.pace = new DispatcherPace(nanoTime);
    DispatcherConfig d = config.dispatcher();
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "sluice-dispatch-timer");
      t.setDaemon(true);
      return t;
    });
    this.timer.setRemoveOnCancelPolicy(true);
    // Records read but not settled are held in memory (queued, in flight, or being written); past
    // this many the consumer pauses until settlements catch up. A per-tenant provider's endpoints
    // count one buffer here (each live lane widens it, ReadBudget.PER_ENDPOINT_LANE).
    int buffers = d.bufferSize() * config.providers().size();
    this.held = ReadBudget.of(config.providers(), 2 * buffers + 1000, d.bufferBytes());
    OffsetCommits commits = new OffsetCommits(consumer, owned, clock, Books.COMMIT_EVERY_MILLIS);
    this.books = new Books(owned, commits, held, wiring.deliveredLog(), timer, clock);
    this.sender = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "sluice-settlement-sender");
      t.setDaemon(true);
      return t;
    });
    this.writer = new SettlementWriter(producer, topics, clock, books::settled, books::dropped,
        timer, 1000, owned::isCurrent, sender, nanoTime);
    this.callsWait = new CallsWait(writer::stall);
    KeyTurns turns = new KeyTurns(wiring.orders(), config);
    WithoutCall withoutCall = new WithoutCall(writer, listener, config, clock, turns);
    this.sweep = new LaneSweep(withoutCall, nanoTime);
    this.pauses = new PauseKeeper(wiring.pauses(), d.bufferSize(), withoutCall, nanoTime);
    DispatchSpans spans = new DispatchSpans(wiring.tracer(), clock);
    Settler settler = new Settler(new CallJudge(new FeedbackPolicy(config.maxAttempts(),
        new Backoff(d.backoffBase(), d.backoffCap())), d.backoffBase()), learner, writer,
        books.deliveries(), listener, clock, wiring.random(), turns, spans);
    LaneFactory factory = new LaneFactory(timer, listener, withoutCall::cannotFit, nanoTime, pace,
        TimeUnit.NANOSECONDS.toMicros(d.lookahead().toNanos()), d.bufferSize(),
        new PriorityOrder(d.priorityAging()), clock,
        e -> withoutCall.dead(e, Reason.EXPIRED, "deadline " + e.event().deadline()
            + " passed while it waited for its slot"), spans, callsWait);
    this.lanes = new Lanes(config, factory, providers, wiring.limitSources(),
        new TenantEndpoints.Parts(factory, providers, wiring.leak(), learner, settler,
            (e, detail) -> withoutCall.dead(e, Reason.ENDPOINT_DISABLED, detail), clock),
        Lanes.weights(config), wiring.tenants());
    // A partition pauses after a few dozen arrivals in a row met a full buffer, for at most the
    // ladder's smallest step.
    this.backpressure = new Backpressure(consumer, held,
        new OverflowPause<>(OVERFLOWS_TO_PAUSE, config.ladder().get(0).toNanos()), nanoTime,
        d.bufferSize() / 2);
    this.inherited = new InheritedCalls(wiring.deliveredLog(), writer, books, nanoTime,
        settleGrace(config), RECHECK);
    this.arrivals = new Arrivals(config, owned, held, lanes, pauses, withoutCall, writer, books,
        inherited, backpressure, clock, turns);
    this.handOver = new HandOver(lanes, pauses, inherited, held, owned, books, wiring.instances(),
        new PartitionTakeover(consumer, wiring.deliveredLog(), COMMITTED_TIMEOUT,
            DELIVERED_LOG_TIMEOUT, nanoTime), clock, nanoTime, longestTimeoutMillis(),
        () -> abrupt, () -> writer.flush(HandOver.WRITES_MILLIS));
  }

  /**
   * Takes a reloaded configuration (see {@code LiveConfig}): tier weights for every lane's fair
   * queue from now on, and the record check (tenants' tiers, providers' {@code maxCost}) for every
   * record read from now on. Provider limits reach the lanes through their limit sources.
   * Entries already queued keep the tier they were queued under.
   */
  public void reload(SluiceConfig next) {
    lanes.reweigh(Lanes.weights(next));
    arrivals.reload(next);
    learner.bound(LimitLearner.boundsOf(next));
  }

  /** What this dispatcher learned about its providers' limits. */
  public LimitLearner learner() {
    return learner;
  }

  @Override
  public void run() {
    // Both ready topics, one consumer: a high event is read from ready.high while the partitions
    // of ready wait paused behind a backlog (each partition has its own budget, Backpressure).
    consumer.subscribe(topics.readyTopics(), handOver);
    consuming = true;
    try {
      while (running.get()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
          arrivals.accept(record);
        }
        pauses.apply(lanes::all, clock.instant(), arrivals::queue);
        sweep.sweepIfDue(lanes::all, clock.instant(), pauses.heldByProvider(),
            callsWait.why().orElse(null));
        inherited.tick();
        books.apply();
        books.commitIfDue(clock.millis());
        backpressure.apply(owned, lanes::queuedOf, lanes.endpointLanes());
        lanes.tick(clock.millis());
        pace.tick();
        callsWait.tick();
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
      Shutdown shutdown = new Shutdown(consumer, producer, providers.values(), lanes, books,
          writer, sender, timer, nanoTime);
      if (abrupt) {
        shutdown.abruptly();
      } else {
        shutdown.cleanly(longestTimeoutMillis() + 5000);
      }
    }
  }

  /** Queued events per provider (gauges). */
  public Map<String, Integer> buffered() {
    return lanes.queued();
  }

  /** Calls in flight per provider (gauges). */
  public Map<String, Integer> inFlight() {
    return lanes.inFlight();
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
    return pauses.heldByProvider();
  }

  /** What each provider's events wait for on this instance, as of the last second ({@link Waits}). */
  public Map<String, Waits> waits() {
    return sweep.waits();
  }

  /**
   * Why new calls wait now, dispatcher-wide (settlements unacknowledged by Kafka past
   * {@link io.sluice.dispatcher.dispatch.settlement.WriteStall}'s bound), or empty.
   */
  public Optional<String> callsWait() {
    return callsWait.why();
  }

  /** Settlements handed to Kafka and not yet acknowledged (a gauge). */
  public int unacknowledgedSettlements() {
    return writer.unacknowledged();
  }

  /** Partitions of {@code sluice.ready} and {@code sluice.ready.high} this instance owns now. */
  public int assignedPartitions() {
    return owned.count();
  }

  /**
   * Partitions of {@code sluice.ready} alone (the normal and low classes' work) this instance
   * owns now: what a test or an operator reasons about when one partition has one owner, since
   * {@code ready.high}'s partitions may be given to another member.
   */
  public int assignedReadyPartitions() {
    return owned.count(topics.ready());
  }

  /** Records not called again because the previous owner's last commit said they were settled. */
  public long skippedAsSettled() {
    return arrivals.skippedAsSettled();
  }

  /** Records not called again because the delivered log said a call of theirs had been accepted. */
  public long skippedAsDelivered() {
    return arrivals.skippedAsDelivered();
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

  /**
   * How long a partition's new owner waits for its previous owner's outcome of a call the
   * delivered log shows delivered and not settled, before it writes the outcome itself: the
   * producer's delivery timeout, in which the previous owner may still be sending it, and a second
   * for its acknowledgement to reach the log ({@code SettlementGrace}).
   */
  static Duration settleGrace(SluiceConfig config) {
    return DispatcherClients.deliveryTimeout(config).plusSeconds(1);
  }

  private long longestTimeoutMillis() {
    return config.providers().values().stream()
        .mapToLong(p -> p.timeout().toMillis()).max().orElse(0);
  }
}
