package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.settlement.WriteStall;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.redis.order.KeyTurn;
import io.sluice.redis.order.OrderKeys;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.order.OrderTicket;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's loop on Kafka's own {@link MockConsumer} and {@link MockProducer}, with an
 * in-process leak and a provider that answers at once: what it calls, what it writes, what it
 * commits. The loop runs on its own thread, as in production; records are handed to it inside its
 * polls ({@link MockConsumer#schedulePollTask}), and each test waits for a condition it can see
 * (a record written, a commit), never for a length of time. The broker, Redis and HTTP paths are
 * the app's ITs'.
 */
class DispatcherTest {
  /** One provider, {@code api}; {@code ORDERING} is where its ordering goes (none here). */
  private static final String YAML = """
      tiers: { std: { weight: 1 } }
      defaultTier: std
      maxAttempts: 3
      providers:
        api:
          url: http://127.0.0.1:9/api
          rate: 200/s
          ORDERING
          quotas: { std: { capacity: 10, refill: 1/s } }
      """;
  /** Provider {@code api}, one call in flight, a buffer of 20; {@code LADDER} is where a ladder goes. */
  private static final String ONE_AT_A_TIME = """
      tiers: { std: { weight: 1 } }
      defaultTier: std
      LADDER
      dispatcher: { bufferSize: 20 }
      providers:
        api:
          url: http://127.0.0.1:9/api
          rate: 200/s
          maxInFlight: 1
          timeout: 5s
          quotas: { std: { capacity: 10, refill: 1/s } }
      """;
  private static final SluiceConfig CONFIG = ConfigLoader.parse(YAML.replace("ORDERING", ""), Map.of());
  private static final Topics TOPICS = new Topics(CONFIG.kafka().topicPrefix(), CONFIG.ladder());
  private static final TopicPartition READY = new TopicPartition(TOPICS.ready(), 0);
  private static final long WAIT_MILLIS = 10_000;

  private final CommitsKept consumer = new CommitsKept();
  /** Acknowledges every write at once, unless a test sets one that does not. */
  private MockProducer<byte[], byte[]> producer = producer(true);
  /** The event id of each call, in order. */
  private final List<String> called = new CopyOnWriteArrayList<>();
  /** What the provider answers each call. */
  private volatile ProviderResult answer = new ProviderResult.Answered(200, null);
  /** When the provider answers: at once, unless a test holds its answers back. */
  private volatile CompletableFuture<Void> answered = CompletableFuture.completedFuture(null);
  private final AtomicReference<PauseRules> pauses = new AtomicReference<>(PauseRules.NONE);
  private final Provider provider = call -> {
    called.add(call.eventId());
    return answered.thenApply(v -> answer);
  };
  /** The delivered log (Redis in the application): none unless a test keeps one. */
  private DeliveredLog deliveredLog = DeliveredLog.NONE;
  /** Metrics and events: none unless a test listens. */
  private DispatchListener listener = DispatchListener.NONE;
  /** How far the dispatcher's monotonic clock is ahead of the machine's: a test moves it on. */
  private final AtomicLong aheadNanos = new AtomicLong();
  private Dispatcher dispatcher;
  private Thread loop;
  private long offset;

  private void start() {
    start(CONFIG, OrderStore.NONE);
  }

  private void start(SluiceConfig config, OrderStore orders) {
    dispatcher = new Dispatcher(DispatcherWiring.of(config, consumer, producer,
            Map.of("api", provider), new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1),
            Clock.systemUTC(), listener)
        .withPauses(pauses::get)
        .withDeliveredLog(deliveredLog)
        .withTime(() -> System.nanoTime() + aheadNanos.get(), () -> 0.5)
        .withOrders(orders));
    consumer.updateBeginningOffsets(Map.of(READY, 0L));
    consumer.schedulePollTask(() -> consumer.rebalance(List.of(READY)));
    loop = new Thread(dispatcher, "dispatcher-test");
    loop.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (dispatcher != null) {
      dispatcher.close();
      loop.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  @Test
  void shouldCallEachReadyEventOnceWriteItsOutcomeAndCommitPastIt() {
    start();
    read(event("e1"), event("e2"), event("e3"));

    awaitTrue(() -> written(TOPICS.outcomes()).size() == 3, "three outcomes");
    awaitTrue(() -> committed() == 3, "committed past the three");
    assertEquals(Set.of("e1", "e2", "e3"), Set.copyOf(called));
    assertEquals(3, called.size(), "each called once");
  }

  @Test
  void shouldDeadLetterAMalformedRecordWithoutACallAndGoOn() {
    start();
    read("{\"id\":\"bad\",\"tenant\":\"acme\"}", event("e2"));

    awaitTrue(() -> written(TOPICS.dlq()).size() == 1 && written(TOPICS.outcomes()).size() == 1,
        "one dead letter, one outcome");
    awaitTrue(() -> committed() == 2, "committed past both");
    assertEquals(List.of("e2"), called, "the malformed record cost no call");
  }

  @Test
  void shouldRetryAServerErrorRoundTheLadderAsAnAttempt() {
    answer = new ProviderResult.Answered(500, null);
    start();
    read(event("e1"));

    awaitTrue(() -> retries().size() == 1, "a retry written to a delay step");
    awaitTrue(() -> committed() == 1, "committed past it: the retry takes it on");
    ProducerRecord<byte[], byte[]> retry = retries().get(0);
    assertEquals("1", header(retry, HeaderNames.ATTEMPT), "one attempt spent");
    assertEquals(List.of("e1"), called);
  }

  @Test
  void shouldHoldAnEventAPauseCoversAndCallItOnceThePauseIsLifted() {
    pauses.set(PauseRules.of(List.of(new Pause(PauseScope.provider("api"), "ops",
        Instant.now(), "maintenance"))));
    start();
    read(event("e1"));

    awaitTrue(() -> dispatcher.heldByPause().getOrDefault("api", 0) == 1, "held by the pause");
    assertEquals(List.of(), called, "not called while paused");
    assertEquals(0, committed(), "not settled while held");

    pauses.set(PauseRules.NONE);
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "called once the pause is lifted");
    assertEquals(List.of("e1"), called);
  }

  @Test
  void shouldCommitARevokedPartitionOnlyOnceItsSettlementsAreAcknowledged() {
    producer = producer(false); // a write is acknowledged only when the producer flushes
    start();
    read(event("e1"));
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "the outcome sent");
    assertEquals(0, committed(), "not acknowledged yet: not settled");

    consumer.schedulePollTask(() -> consumer.rebalance(List.of()));

    awaitTrue(() -> consumer.assignment().isEmpty(), "the partition handed over");
    assertEquals(1, committed(), "the hand-over waited for the outcome's acknowledgement and "
        + "committed past it: its next owner does not call it again");
    assertEquals(List.of("e1"), called);
  }

  /**
   * After a broker restart the group fences its members: the partition is lost (no hand-over, no
   * commit) and assigned again, and reading starts over from the last commit. A settlement sent
   * just before (a park, an outcome) must count: the chaos run saw events parked twice this way,
   * each copy called (108 duplicates after one broker restart).
   */
  @Test
  void shouldNotCallAgainAnEventSettledJustBeforeItsPartitionWasLostAndAssignedBack() {
    producer = producer(false); // the outcome is acknowledged only when the producer flushes
    start();
    read(event("e1"));
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "the outcome sent");

    takeBackAndReadAgain(0, event("e1"));

    awaitTrue(() -> committed() == 1 || called.size() > 1, "the record read again settled");
    assertEquals(List.of("e1"), called, "called once: its settlement counted across the loss");
  }

  /**
   * The chaos run's double settlement (issue 34): the old owner called the provider, logged the
   * call delivered and sent its outcome, but the broker's acknowledgement (and with it the log's
   * "settled") came late, after a broker restart moved the partition. The new owner (here the same
   * process, assigned the partition back) reads the record again and finds "delivered, not
   * settled": writing the outcome at once made two outcome records of one call. It waits for the
   * old owner's write instead, holding that record only, and settles it without writing once the
   * log says the old outcome was acknowledged.
   */
  @Test
  void shouldNotWriteASecondOutcomeWhenTheOldOwnersAcknowledgementComesAfterTheTakeover() {
    deliveredThenTakenBack();
    producer.completeNext(); // the old outcome's acknowledgement, at last

    awaitTrue(() -> committed() == 1 || written(TOPICS.outcomes()).size() > 1,
        "the record read again settled");
    assertEquals(1, written(TOPICS.outcomes()).size(), "one outcome record for one call");
    assertEquals(1, committed(), "settled by the old owner's outcome");
    assertEquals(List.of("e1"), called, "called once");
  }

  /**
   * The same takeover, the old owner's outcome never written (its write failed, or the process
   * died before sending it): once the grace it could still be written in is over, the new owner
   * writes the outcome itself. An event is never left without one.
   */
  @Test
  void shouldWriteTheOutcomeOfACallDeliveredBeforeTheTakeoverOnceTheOldOwnerCanNoLongerWriteIt() {
    MemoryLog log = deliveredThenTakenBack();
    producer.errorNext(new TimeoutException("never written"));
    assertEquals(1, written(TOPICS.outcomes()).size(), "no outcome of its own within the grace");

    aheadNanos.addAndGet(Dispatcher.settleGrace(CONFIG).toNanos()); // the grace is over
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 2, "the new owner writes the outcome");
    producer.completeNext();
    awaitTrue(() -> committed() == 1, "settled by its own outcome");
    assertEquals(List.of("e1"), called, "called once");
    awaitTrue(() -> log.holds(0, true), "the log says settled, for a later owner");
  }

  /**
   * The broker away (issue 39): {@code KafkaProducer.send} blocks its caller while it waits for a
   * topic's metadata. It blocked the threads that handle providers' answers, every later answer
   * waited unjudged behind them, and a SIGKILL lost them all: the next owner called them again.
   * Every answer must be judged, and its call logged delivered for the next owner, whatever the
   * producer does.
   */
  @Test
  void shouldLogEveryAnswerDeliveredWhileTheProducerBlocksItsCaller() {
    CountDownLatch brokerBack = new CountDownLatch(1);
    producer = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()) {
      // Not synchronized, unlike the mock's own: the test reads history() while send waits.
      @Override
      public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record,
          Callback callback) {
        try {
          brokerBack.await(); // as send waits for metadata with the broker away
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return super.send(record, callback);
      }
    };
    MemoryLog log = new MemoryLog();
    deliveredLog = log;
    try {
      start();
      read(event("e1"), event("e2"), event("e3"));

      awaitTrue(() -> log.holds(0, false) && log.holds(1, false) && log.holds(2, false),
          "every answer logged delivered while Kafka takes no outcome");
      assertEquals(List.of("e1", "e2", "e3"), called);
    } finally {
      brokerBack.countDown();
    }
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 3, "the outcomes written once it is back");
  }

  /**
   * While settlements go unacknowledged past {@code WriteStall}'s bound, no call starts: an answer
   * taken then is at the mercy of a crash. Calls go again once Kafka acknowledges.
   */
  @Test
  void shouldStopCallingWhileSettlementsGoUnacknowledgedAndGoAgainOnceTheyAre() {
    producer = acknowledgedOnlyWhenTold();
    List<String> wasted = new CopyOnWriteArrayList<>();
    listener = new DispatchListener() {
      @Override
      public void slotWasted(String provider, String reason) {
        wasted.add(reason);
      }
    };
    start();
    read(event("e1"));
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "e1's outcome sent");
    aheadNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(WriteStall.OLDEST_MILLIS + 1));

    read(event("e2"));
    awaitTrue(() -> wasted.contains("unwritten"), "a slot for e2 unused");
    assertEquals(List.of("e1"), called, "e2 not called while e1's outcome is unacknowledged");
    assertTrue(dispatcher.callsWait().isPresent(), "status says why calls wait");

    producer.completeNext(); // e1's outcome acknowledged: the broker is back
    awaitTrue(() -> called.contains("e2"), "e2 called once the outcomes are acknowledged");
    assertEquals(List.of("e1", "e2"), called);
  }

  /**
   * e1 called, its call logged delivered and its outcome sent, not acknowledged (the broker away
   * longer than a hand-over waits); then the partition lost and assigned back, e1 read again and
   * found delivered in the log. Returns the log.
   */
  private MemoryLog deliveredThenTakenBack() {
    producer = acknowledgedOnlyWhenTold();
    MemoryLog log = new MemoryLog();
    deliveredLog = log;
    start();
    read(event("e1"));
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "the outcome sent");
    awaitTrue(() -> log.holds(0, false), "the call logged delivered, not settled");

    takeBackAndReadAgain(0, event("e1"));
    awaitTrue(() -> dispatcher.skippedAsDelivered() == 1 || written(TOPICS.outcomes()).size() > 1,
        "the record read again and found delivered in the log");
    return log;
  }

  /**
   * The group fences this member (a broker restart): the partition is lost and assigned back, and
   * reading starts over from the last commit (none) with {@code value} at {@code at}.
   */
  private void takeBackAndReadAgain(long at, String value) {
    consumer.updateEndOffsets(Map.of(READY, at + 1));
    consumer.schedulePollTask(() -> {
      consumer.listener.onPartitionsLost(List.of(READY));
      consumer.listener.onPartitionsAssigned(List.of(READY));
      consumer.seek(READY, at);
      consumer.addRecord(new ConsumerRecord<>(READY.topic(), READY.partition(), at,
          "acme".getBytes(UTF_8), value.getBytes(UTF_8)));
    });
  }

  /**
   * A producer whose writes are acknowledged only when the test says ({@code completeNext}), a
   * flush included: a broker away for longer than a hand-over waits for its writes.
   */
  private static MockProducer<byte[], byte[]> acknowledgedOnlyWhenTold() {
    return new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer()) {
      @Override
      public synchronized void flush() {
        // the broker does not answer
      }
    };
  }

  /** The delivered log of the only partition, in memory (Redis in the application). */
  private static final class MemoryLog implements DeliveredLog {
    private final Map<Long, Delivered> entries = new ConcurrentHashMap<>();

    @Override
    public CompletionStage<Void> record(TopicPartition partition, long keepFrom,
        List<Delivered> delivered) {
      delivered.forEach(d -> entries.merge(d.offset(), d, (a, b) -> a.settled() ? a : b));
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
      return between(partition, from, Long.MAX_VALUE);
    }

    @Override
    public CompletionStage<Map<Long, Delivered>> between(TopicPartition partition, long from,
        long to) {
      Map<Long, Delivered> found = new HashMap<>();
      entries.forEach((offset, d) -> {
        if (offset >= from && offset <= to) {
          found.put(offset, d);
        }
      });
      return CompletableFuture.completedFuture(found);
    }

    boolean holds(long offset, boolean settled) {
      Delivered d = entries.get(offset);
      return d != null && d.settled() == settled;
    }
  }

  /**
   * The default budgets: one dispatcher owning 6 partitions, a per-tenant provider. Reading pauses
   * a partition past its share of unsettled records, (2 x 1,000 + 1,000 + 32 per live endpoint
   * lane) / 6: about 510 here.
   */
  private static final SluiceConfig ENDPOINTS = ConfigLoader.parse("""
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers:
        hooks:
          endpoints: perTenant
          allowPrivateNetworks: true
          allowPlainHttp: true
          rate: 100/s
          disableAfter: 200ms
          probeAfter: 1h
          whileDisabled: wait
          quotas: { std: { capacity: 10, refill: 1/s } }
      tenants:
        dead: { endpoints: { hooks: "http://127.0.0.1:9/dead" } }
        alive: { endpoints: { hooks: "http://127.0.0.1:9/alive" } }
      """, Map.of());

  @Test
  void shouldKeepADisabledEndpointsBacklogFromStoppingItsPartition() {
    List<TopicPartition> six = new java.util.ArrayList<>();
    for (int p = 0; p < 6; p++) {
      six.add(new TopicPartition(TOPICS.ready(), p));
    }
    Provider hooks = new Provider() {
      @Override
      public java.util.concurrent.CompletionStage<ProviderResult> call(
          io.sluice.dispatcher.provider.ProviderCall call) {
        throw new AssertionError("only endpoints are called");
      }

      @Override
      public Provider toward(java.net.URI endpoint) {
        return call -> {
          called.add(call.eventId());
          return CompletableFuture.completedFuture(new ProviderResult.Answered(
              endpoint.getPath().equals("/dead") ? 500 : 200, null));
        };
      }
    };
    java.util.concurrent.atomic.AtomicBoolean disabled = new java.util.concurrent.atomic.AtomicBoolean();
    DispatchListener listener = new DispatchListener() {
      @Override
      public void endpointDisabled(String provider) {
        disabled.set(true);
      }
    };
    dispatcher = new Dispatcher(DispatcherWiring.of(ENDPOINTS, consumer, producer,
            Map.of("hooks", hooks), new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1),
            Clock.systemUTC(), listener)
        .withTime(System::nanoTime, () -> 0.5));
    Map<TopicPartition, Long> beginnings = new java.util.HashMap<>();
    six.forEach(tp -> beginnings.put(tp, 0L));
    consumer.updateBeginningOffsets(beginnings);
    consumer.setMaxPollRecords(100);
    consumer.schedulePollTask(() -> consumer.rebalance(six));
    loop = new Thread(dispatcher, "dispatcher-test");
    loop.start();
    // The dead endpoint fails until it is disabled (its probe an hour away).
    List<String> warm = new java.util.ArrayList<>();
    for (int i = 0; i < 100; i++) {
      warm.add(endpointEvent("warm" + i, "dead"));
    }
    read(warm.toArray(String[]::new));
    awaitTrue(disabled::get, "the dead endpoint disabled after 200 ms of 500s");

    // 1,200 events for it, then 30 for another tenant (within its lane's 32), all on one
    // partition.
    List<String> held = new java.util.ArrayList<>();
    for (int i = 0; i < 1_200; i++) {
      held.add(endpointEvent("held" + i, "dead"));
    }
    read(held.toArray(String[]::new));
    List<String> alive = new java.util.ArrayList<>();
    for (int i = 0; i < 30; i++) {
      alive.add(endpointEvent("alive" + i, "alive"));
    }
    read(alive.toArray(String[]::new));

    awaitTrue(() -> written(TOPICS.outcomes()).size() == 30,
        "the other tenant's 30 events delivered: the dead endpoint's queue did not pause the "
            + "partition they share");
    assertTrue(called.stream().noneMatch(id -> id.startsWith("held")),
        "nothing called at the disabled endpoint");
    assertTrue(written(TOPICS.delay(CONFIG.ladder().get(CONFIG.ladder().size() - 1))).size()
        >= 1_000, "its backlog parked in Kafka until its probe, not held in memory");
    awaitTrue(() -> {
      Waits w = dispatcher.waits().get("hooks");
      return w != null && w.lanesHeld() == 1
          && w.parked().values().stream().mapToInt(Integer::intValue).sum() >= 1_000;
    }, "status is told why they wait: one lane held (disabled until its probe), the rest parked");
  }

  @Test
  void shouldTellStatusTheOldestWaitingEventPerTierAndTenant() {
    answer = new ProviderResult.Answered(429, "12"); // held 12 s: queued, not parked (16 s)
    start();
    read(event("first"));
    awaitTrue(() -> retries().size() == 1, "the 429 retried; the lane held for 12 s");
    long t0 = System.currentTimeMillis() - 30_000;

    consumer.schedulePollTask(() -> {
      for (String[] e : List.of(new String[] {"a1", "acme", "0"}, new String[] {"g1", "globex",
          "5000"}, new String[] {"a2", "acme", "9000"})) {
        org.apache.kafka.common.header.internals.RecordHeaders h =
            new org.apache.kafka.common.header.internals.RecordHeaders();
        h.add(HeaderNames.TIER, "std".getBytes(UTF_8));
        h.add(HeaderNames.FIRST_SEEN, Long.toString(t0 + Long.parseLong(e[2])).getBytes(UTF_8));
        consumer.addRecord(new ConsumerRecord<>(READY.topic(), READY.partition(), offset++,
            ConsumerRecord.NO_TIMESTAMP, org.apache.kafka.common.record.TimestampType.CREATE_TIME,
            -1, -1, e[1].getBytes(UTF_8), ("{\"id\":\"" + e[0] + "\",\"tenant\":\"" + e[1]
            + "\",\"provider\":\"api\",\"payload\":{}}").getBytes(UTF_8), h,
            java.util.Optional.empty()));
      }
    });

    AtomicReference<Map<String, Waits>> last = new AtomicReference<>();
    try {
      awaitTrue(() -> {
        last.set(dispatcher.waits());
        Waits w = last.get().get("api");
        return w != null && w.tenantsWaiting() == 2;
      }, "status told the two tenants waiting in the held lane");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last told: " + last.get() + ", called "
          + called, e);
    }
    Waits w = dispatcher.waits().get("api");
    assertEquals(Map.of("acme", t0, "globex", t0 + 5_000), w.oldestByTenant());
    assertEquals(3, w.tiers().get("std").queuedCost());
    assertEquals(t0, w.tiers().get("std").oldestFirstSeenMillis());
  }

  private static String endpointEvent(String id, String tenant) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant
        + "\",\"provider\":\"hooks\",\"payload\":{}}";
  }

  @Test
  void shouldDeadLetterAnEventWhoseDeadlinePassesWhileItsLaneIsHeldWithoutCallingIt() {
    answer = new ProviderResult.Answered(429, "60"); // the provider asks for a minute
    start();
    read(event("first"));
    awaitTrue(() -> retries().size() == 1, "the 429 retried; the lane held for 60 s");
    answer = new ProviderResult.Answered(200, null);

    read(eventWithDeadline("late", Instant.now().plusMillis(1_500)));

    awaitTrue(() -> written(TOPICS.dlq()).size() == 1, "dead-lettered at its deadline");
    assertEquals("expired", header(written(TOPICS.dlq()).get(0), HeaderNames.REASON));
    assertEquals(List.of("first"), called, "never called after its deadline");
  }

  @Test
  void shouldSendAnOverflowRoundTheLadderUntilItsTurnAtThePacedRateNotASlowMomentsDrain() {
    // One call in flight, each answered after 2 s: the lane drains 0.5/s while slow, its paced
    // rate is 200/s. A buffer of 20: an overflow's turn is 20 / 200/s = 0.1 s away (the ladder's
    // smallest step, 1 s), not 20 / 0.5/s = 40 s.
    SluiceConfig slow = ConfigLoader.parse(ONE_AT_A_TIME.replace("LADDER", ""), Map.of());
    java.util.concurrent.ScheduledExecutorService later =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      dispatcher = answeringAfter(slow, later, Duration.ofSeconds(2));
      consumer.updateBeginningOffsets(Map.of(READY, 0L));
      consumer.schedulePollTask(() -> consumer.rebalance(List.of(READY)));
      loop = new Thread(dispatcher, "dispatcher-test");
      loop.start();
      read(event("e0"), event("e1"));
      awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "one slow call answered: the lane "
          + "has measured its 2 s calls");

      List<String> more = new java.util.ArrayList<>();
      for (int i = 0; i < 30; i++) {
        more.add(event("m" + i));
      }
      read(more.toArray(String[]::new));

      awaitTrue(() -> !retries().isEmpty(), "an overflow sent round the ladder");
      ProducerRecord<byte[], byte[]> overflow = retries().get(0);
      assertEquals("overflow", header(overflow, HeaderNames.REASON));
      long wait = Long.parseLong(header(overflow, HeaderNames.NOT_BEFORE)) - overflow.timestamp();
      assertTrue(wait <= 1_000, "back at its turn at the paced rate, the smallest step: " + wait
          + " ms (" + header(overflow, HeaderNames.DETAIL) + ")");
    } finally {
      later.shutdownNow();
    }
  }

  @Test
  @org.junit.jupiter.api.DisplayName("a high event is read and called from ready.high while its "
      + "tenant's partition of ready is paused behind a backlog of lows (issue 36)")
  void shouldCallAHighEventWhileItsPartitionOfReadyIsPausedWithLows() {
    // Calls answered after 200 ms, one at a time: the lane drains 5/s. A buffer of 20; the ladder's
    // one step, 30 s, is how long a partition whose arrivals overflow may stay paused.
    SluiceConfig slow = ConfigLoader.parse(ONE_AT_A_TIME.replace("LADDER", "ladder: [30s]"), Map.of());
    TopicPartition high = new TopicPartition(TOPICS.readyHigh(), 0);
    java.util.concurrent.ScheduledExecutorService later =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try {
      dispatcher = answeringAfter(slow, later, Duration.ofMillis(200));
      consumer.updateBeginningOffsets(Map.of(READY, 0L, high, 0L));
      consumer.setMaxPollRecords(100);
      // As the group coordinator does: partition 0 of each topic the dispatcher subscribed to.
      consumer.schedulePollTask(() -> consumer.rebalance(consumer.subscription().stream()
          .map(topic -> new TopicPartition(topic, 0)).toList()));
      loop = new Thread(dispatcher, "dispatcher-test");
      loop.start();
      int lows = 2_000;
      List<String> backlog = new java.util.ArrayList<>();
      for (int i = 0; i < lows; i++) {
        backlog.add(prioritised("low" + i, "low"));
      }
      read(backlog.toArray(String[]::new));
      awaitTrue(() -> consumer.paused().contains(READY), "ready's partition paused: its "
          + "arrivals overflow a full lane");

      java.util.concurrent.atomic.AtomicBoolean readyPausedThen = new java.util.concurrent.atomic.AtomicBoolean();
      consumer.schedulePollTask(() -> {
        readyPausedThen.set(consumer.paused().contains(READY));
        consumer.addRecord(new ConsumerRecord<>(high.topic(), high.partition(), 0,
            "acme".getBytes(UTF_8), prioritised("urgent", "high").getBytes(UTF_8)));
      });
      awaitTrue(() -> called.contains("urgent"), "the high event called");
      assertTrue(readyPausedThen.get(), "written while ready's partition was paused");
      long lowsCalled = called.stream().filter(id -> id.startsWith("low")).count();
      assertTrue(lowsCalled < lows / 10, "called before its tenant's lows, not after them: "
          + lowsCalled + " lows called first");
      assertTrue(consumer.position(READY) < lows, "lows still unread on ready when the high was "
          + "called: " + consumer.position(READY));
    } finally {
      later.shutdownNow();
    }
  }

  /** A dispatcher of {@code config} whose provider {@code api} answers 200 each call {@code after} it. */
  private Dispatcher answeringAfter(SluiceConfig config,
      java.util.concurrent.ScheduledExecutorService later, Duration after) {
    Provider slowly = call -> {
      called.add(call.eventId());
      CompletableFuture<ProviderResult> answer = new CompletableFuture<>();
      later.schedule(() -> answer.complete(new ProviderResult.Answered(200, null)),
          after.toMillis(), TimeUnit.MILLISECONDS);
      return answer;
    };
    return new Dispatcher(DispatcherWiring.of(config, consumer, producer,
            Map.of("api", slowly), new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1),
            Clock.systemUTC(), DispatchListener.NONE)
        .withTime(System::nanoTime, () -> 0.5));
  }

  private static String prioritised(String id, String priority) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"api\",\"priority\":\""
        + priority + "\",\"payload\":{}}";
  }

  private static final SluiceConfig ORDERED = ConfigLoader.parse(YAML.replace("ORDERING",
      "ordering: perKey\n    orderingOnDeadHead: deadLetter"), Map.of());

  /** One key's turn in memory, moved as {@code ordering.lua settle} moves it. */
  private static final class OneKey implements OrderStore {
    static final long EPOCH = 7;
    volatile KeyTurn state;
    final List<String> settled = new CopyOnWriteArrayList<>();
    final long last;

    OneKey(long last) {
      this.last = last;
      this.state = new KeyTurn(EPOCH, 1, 0);
    }

    @Override
    public Assigned assign(OrderKeys keys, String orderingKey, String source, int maxKeysInFlight) {
      throw new UnsupportedOperationException("the gate's");
    }

    @Override
    public Read turn(OrderKeys keys, String orderingKey) {
      return new Read(true, Optional.of(state));
    }

    @Override
    public synchronized void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how,
        boolean deadLetterFollowers) {
      settled.add(keys.tenant() + "/" + orderingKey + " " + ticket.seq() + " " + how);
      if (ticket.seq() == state.next()) {
        long blocked = how == Settled.DEAD && deadLetterFollowers ? last : state.blocked();
        state = new KeyTurn(EPOCH, ticket.seq() + 1, blocked);
      }
    }
  }

  @Test
  void shouldCallOnlyAKeysHeadAndSendAFollowerRoundTheLadderUntilItsTurn() {
    answered = new CompletableFuture<>(); // the head's call waits: its follower is read meanwhile
    OneKey key = new OneKey(2);
    start(ORDERED, key);
    read(ticketed("e1", 1), ticketed("e2", 2));

    awaitTrue(() -> retries().size() == 1 && called.size() == 1, "the head called, the follower round the ladder");
    assertEquals(List.of("e1"), called, "the follower waits for the head's outcome");
    assertEquals("ordering", header(retries().get(0), HeaderNames.REASON));
    assertEquals(List.of(), key.settled, "the head's call has no outcome yet");
    answered.complete(null);
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 1, "the head's outcome");
    assertEquals(List.of("acme/k 1 DELIVERED"), key.settled, "the head's delivery moved the turn");
    // Back from the ladder, as the relay brings it: its turn now.
    read(ticketed("e2", 2));
    awaitTrue(() -> written(TOPICS.outcomes()).size() == 2, "the follower's outcome");
    assertEquals(List.of("e1", "e2"), called);
    assertEquals(3, key.state.next());
  }

  @Test
  void shouldDeadLetterTheFollowersOfADeadHeadBlockedByHeadWithoutACall() {
    answer = new ProviderResult.Answered(400, null);
    OneKey key = new OneKey(2);
    start(ORDERED, key);
    read(ticketed("e1", 1));
    awaitTrue(() -> written(TOPICS.dlq()).size() == 1, "the head dead");
    read(ticketed("e2", 2));

    awaitTrue(() -> written(TOPICS.dlq()).size() == 2, "the follower dead too");
    assertEquals("blocked_by_head", header(written(TOPICS.dlq()).get(1), HeaderNames.REASON));
    assertEquals(List.of("e1"), called, "the follower never called");
    assertEquals(List.of("acme/k 1 DEAD", "acme/k 2 BLOCKED"), key.settled);
  }

  /** An event of key {@code k} holding turn {@code seq}, as the gate writes it. */
  private String ticketed(String id, long seq) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"api\",\"orderingKey\":\"k\","
        + "\"payload\":{}}" + TICKET + new OrderTicket(OneKey.EPOCH, seq).encoded();
  }

  /** Splits a {@link #ticketed} value from its ticket. */
  private static final String TICKET = "\u0000";

  private static String eventWithDeadline(String id, Instant deadline) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"api\","
        + "\"deadline\":\"" + deadline + "\",\"payload\":{}}";
  }

  private static MockProducer<byte[], byte[]> producer(boolean autoComplete) {
    return new MockProducer<>(autoComplete, null, new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /** Reads {@code values}; one holding a {@link #TICKET} carries the ticket after it in {@code sluice-order}. */
  private void read(String... values) {
    consumer.schedulePollTask(() -> {
      for (String value : values) {
        int cut = value.indexOf(TICKET);
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(READY.topic(), READY.partition(), offset++,
            "acme".getBytes(UTF_8), (cut < 0 ? value : value.substring(0, cut)).getBytes(UTF_8));
        if (cut >= 0) {
          record.headers().add(HeaderNames.ORDER, value.substring(cut + 1).getBytes(UTF_8));
        }
        consumer.addRecord(record);
      }
    });
  }

  private static String event(String id) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}";
  }

  private List<ProducerRecord<byte[], byte[]>> written(String topic) {
    return producer.history().stream().filter(r -> r.topic().equals(topic)).toList();
  }

  private List<ProducerRecord<byte[], byte[]>> retries() {
    return producer.history().stream().filter(r -> r.topic().startsWith(TOPICS.prefix() + "delay"))
        .toList();
  }

  /** The offset last committed for {@code sluice.ready}'s partition, 0 before any. */
  private long committed() {
    OffsetAndMetadata c = consumer.commits.get(READY);
    return c == null ? 0 : c.offset();
  }

  /**
   * A mock consumer that keeps every commit as a group coordinator would: the mock's own
   * {@code committed()} answers 0 for a partition no longer assigned, so a hand-over's commit
   * could not be seen through it.
   */
  private static final class CommitsKept extends MockConsumer<byte[], byte[]> {
    final Map<TopicPartition, OffsetAndMetadata> commits = new ConcurrentHashMap<>();

    /** The dispatcher's rebalance listener, for a test to call as a fencing would. */
    volatile ConsumerRebalanceListener listener;

    CommitsKept() {
      super("earliest");
    }

    @Override
    public synchronized void subscribe(Collection<String> topics,
        ConsumerRebalanceListener listener) {
      this.listener = listener;
      super.subscribe(topics, listener);
    }

    @Override
    public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
        OffsetCommitCallback callback) {
      commits.putAll(offsets);
      super.commitAsync(offsets, callback);
    }
  }

  private static String header(ProducerRecord<byte[], byte[]> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), UTF_8);
  }

  /** Waits until {@code condition} holds, at most {@value #WAIT_MILLIS} ms. */
  private static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() - deadline < 0, "not within " + WAIT_MILLIS + " ms: " + what);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // polls the condition; the loop runs apart
    }
  }
}
