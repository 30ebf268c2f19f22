package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.GateLimiter;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import io.sluice.gate.limiter.LimiterDecision;
import io.sluice.gate.limiter.MultiRuleLimiter;
import io.sluice.gate.limiter.TokenBucketStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Events of tenants too quiet for a lease wait for the store together: their calls go out in
 * batches, they are routed in the order they came, a bucket has one call out at a time, and a
 * commit never passes an event still waiting.
 */
class PendingEventsTest {
  private static final BucketSpec SPEC = new BucketSpec(5, 5, 1_000_000);
  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"));
  private final InMemoryTokenBucketStore memory = new InMemoryTokenBucketStore(clock::micros);
  /** The sizes of the batches the store was sent. */
  private final List<Integer> batches = new CopyOnWriteArrayList<>();
  private volatile boolean failing;
  /** Every answer the store owes or gave. */
  private final List<CompletableFuture<?>> outstanding = new CopyOnWriteArrayList<>();

  /** The in-memory store, answering 5 ms later on another thread, as Redis would. */
  private final TokenBucketStore later = new TokenBucketStore() {
    private final Executor in5ms = CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS);

    @Override
    public CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
      return acquireBatch(List.of(new BucketCall(key, spec, request))).thenApply(l -> l.get(0));
    }

    @Override
    public CompletionStage<List<Acquisition>> acquireBatch(List<BucketCall> calls) {
      batches.add(calls.size());
      CompletableFuture<List<Acquisition>> answer = CompletableFuture.supplyAsync(() -> {
        if (failing) {
          throw new IllegalStateException("connection refused");
        }
        List<Acquisition> answers = new ArrayList<>();
        calls.forEach(c -> answers.add(memory.acquire(c.key(), c.spec(), c.request()).toCompletableFuture().join()));
        return answers;
      }, in5ms);
      outstanding.add(answer);
      return answer;
    }
  };

  private final GateLimiter limiter = new GateLimiter(later, new RedisCircuit(1000, 1000, s -> {}),
      clock::nanos, Duration.ofSeconds(5), Duration.ZERO, 0, (k, n) -> {});
  private final List<String> routed = new ArrayList<>();
  private final PendingEvents pending = new PendingEvents(limiter,
      new MultiRuleLimiter(later, new RedisCircuit(1000, 1000, s -> {}), Duration.ofSeconds(5), clock::nanos, (p, n) -> {}),
      e -> routed.add(((Event) e).name));

  /** An event of one unit for a tenant's bucket. */
  private final class Event extends PendingEvents.Event {
    final String name;
    final BucketKey key;

    Event(String name, String tenant) {
      this.name = name;
      this.key = new BucketKey("api", tenant);
    }

    @Override
    void begin() {
      calls(limiter.begin(key, SPEC, 1, false, false));
    }

    @Override
    BucketKey key() {
      return key;
    }
  }

  private Event add(String name, String tenant) {
    Event e = new Event(name, tenant);
    e.begin();
    pending.add(e);
    return e;
  }

  @Test
  void shouldSendTheCallsOfQuietTenantsTogetherAndRouteTheirEventsInTheOrderTheyCame() {
    Event a1 = add("a1", "a");
    add("b1", "b");
    add("c1", "c");
    Event a2 = add("a2", "a");
    assertEquals(List.of(), batches, "nothing sent before a drain or a full batch");
    assertTrue(a2.call() == null && a2.decision() == null, "a2 waits for a's call: one call per bucket at a time");

    pending.drainAll();

    assertEquals(List.of(3, 1), batches, "a1, b1 and c1 in one call; a2 after a1's answer");
    assertEquals(List.of("a1", "b1", "c1", "a2"), routed);
    assertInstanceOf(LimiterDecision.Admit.class, a1.decision());
    assertInstanceOf(LimiterDecision.Admit.class, a2.decision());
    assertEquals(0, pending.size());
  }

  @Test
  void shouldSendAFullBatchWithoutWaitingForADrain() {
    for (int i = 0; i < PendingEvents.BATCH; i++) {
      add("e" + i, "tenant-" + i);
    }
    assertEquals(List.of(PendingEvents.BATCH), batches);
    pending.drainAll();
    assertEquals(PendingEvents.BATCH, routed.size());
    for (int i = 0; i < PendingEvents.BATCH; i++) {
      assertEquals("e" + i, routed.get(i));
    }
  }

  @Test
  void shouldRouteAnEventDecidedAtOnceOnlyAfterTheEventsBeforeIt() {
    add("x1", "x");
    Event shut = new Event("decided", "y");
    shut.decided(new LimiterDecision.Unavailable("circuit open"));
    pending.add(shut);
    assertEquals(List.of(), routed, "decided, yet behind x1");
    pending.drainAll();
    assertEquals(List.of("x1", "decided"), routed);
  }

  @Test
  void shouldMakeEveryEventOfAFailedBatchUnavailable() {
    failing = true;
    Event a = add("a", "a");
    Event b = add("b", "b");
    pending.drainAll();
    assertEquals(List.of("a", "b"), routed);
    assertInstanceOf(LimiterDecision.Unavailable.class, a.decision());
    assertInstanceOf(LimiterDecision.Unavailable.class, b.decision());
  }

  /**
   * Issue 34 (2): a task closed dirty is revived with the same processor, and reads its input
   * again from the last commit. What was pending is settled with the store and dropped, never
   * routed: a bucket whose call was out takes its next call at once, and the revived task's events
   * are the only ones routed (GateTaskRevivalIT builds the fault on a broker).
   */
  @Test
  void shouldSettleAndDropWhatWasPendingWhenTheTaskClosesDirty() {
    add("a1", "a");
    add("b1", "b");
    add("a2", "a");
    assertEquals(3, pending.discardAll());
    assertEquals(List.of(), routed, "nothing routed from before the close");
    assertEquals(0, pending.size());
    assertEquals(List.of(2, 1), batches, "a1's and b1's call answered, then a2's: every call settled");

    Event again = add("a1", "a");
    pending.drainAll();
    assertEquals(List.of("a1"), routed, "a's bucket has no call left out: the re-read a1 is decided and routed");
    assertInstanceOf(LimiterDecision.Admit.class, again.decision());
  }

  /**
   * The batch path decides every event exactly as deciding them one by one does: the same
   * decisions, event for event, over a run of busy and quiet tenants whose leases, renewals,
   * reservations and places in line all come into play (time moves between groups of events;
   * within a group the calls of the quiet tenants wait for the store together).
   */
  @Test
  void shouldDecideEveryEventAsDecidingThemOneByOneWould() {
    FakeClock oneClock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"));
    InMemoryTokenBucketStore oneStore = new InMemoryTokenBucketStore(oneClock::micros);
    GateLimiter oneByOne = new GateLimiter(oneStore, new RedisCircuit(1000, 1000, s -> {}),
        oneClock::nanos, Duration.ofSeconds(5), Duration.ofMillis(200), 10, (k, n) -> {});
    GateLimiter batched = new GateLimiter(later, new RedisCircuit(1000, 1000, s -> {}),
        clock::nanos, Duration.ofSeconds(5), Duration.ofMillis(200), 10, (k, n) -> {});
    List<LimiterDecision> routedDecisions = new ArrayList<>();
    PendingEvents queue = new PendingEvents(batched,
        new MultiRuleLimiter(later, new RedisCircuit(1000, 1000, s -> {}), Duration.ofSeconds(5), clock::nanos, (p, n) -> {}),
        e -> routedDecisions.add(e.decision()));
    java.util.Random random = new java.util.Random(25);
    List<LimiterDecision> expected = new ArrayList<>();
    for (int group = 0; group < 60; group++) {
      for (int i = 0; i < 12; i++) {
        // Two busy tenants (leases, renewals, then reservations and lines) and many quiet ones.
        String tenant = random.nextInt(3) == 0 ? "quiet-" + random.nextInt(40) : "busy-" + random.nextInt(2);
        int cost = 1 + random.nextInt(2);
        BucketKey key = new BucketKey("api", tenant);
        expected.add(oneByOne.decide(key, SPEC, cost, false, false));
        PendingEvents.Event e = new PendingEvents.Event() {
          @Override
          void begin() {
            calls(batched.begin(key, SPEC, cost, false, false));
          }

          @Override
          BucketKey key() {
            return key;
          }
        };
        e.begin();
        queue.add(e);
      }
      queue.drainAll();
      answered();
      long step = 20 + random.nextInt(120);
      oneClock.advanceMillis(step);
      clock.advanceMillis(step);
    }
    assertEquals(expected.size(), routedDecisions.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), routedDecisions.get(i), "event " + i);
    }
    assertTrue(expected.stream().anyMatch(d -> d instanceof LimiterDecision.Reserved)
        && expected.stream().anyMatch(d -> d instanceof LimiterDecision.Queued), "reservations and lines came into play");
    assertTrue(batches.stream().anyMatch(size -> size > 1), "some calls went out together");
  }

  /** Waits until every call the store was sent has been answered (renewals go out on their own). */
  private void answered() {
    outstanding.forEach(CompletableFuture::join);
    outstanding.clear();
  }

  @Test
  void shouldRouteEveryWaitingEventBeforeItsOffsetIsCommitted() {
    SluiceConfig config = ConfigLoader.parse(GateTopologyTest.CONFIG, Map.of());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateWiring wiring = new GateWiring(config, later, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, new GateListener() {});
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "pending-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    try (TopologyTestDriver driver = new TopologyTestDriver(GateTopology.build(wiring), props)) {
      TestInputTopic<byte[], byte[]> inbound =
          driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
      TestOutputTopic<byte[], byte[]> ready =
          driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
      String json = "{\"id\":\"e1\",\"tenant\":\"acme\",\"provider\":\"payments-api\",\"cost\":1,\"payload\":{}}";
      // The driver commits after each record: the call is still out when process() returns
      // (nothing drains before a full batch), so only the flush before the commit routes it.
      inbound.pipeInput(new TestRecord<>(bytes("acme"), bytes(json)));
      assertEquals(List.of(1), batches);
      TestRecord<byte[], byte[]> out = ready.readRecord();
      assertEquals("acme", new String(out.key(), StandardCharsets.UTF_8));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
