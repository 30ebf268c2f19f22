package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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
  private static final SluiceConfig CONFIG = ConfigLoader.parse("""
      tiers: { std: { weight: 1 } }
      defaultTier: std
      maxAttempts: 3
      providers:
        api:
          url: http://127.0.0.1:9/api
          rate: 200/s
          quotas: { std: { capacity: 10, refill: 1/s } }
      """, Map.of());
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
  private final AtomicReference<PauseRules> pauses = new AtomicReference<>(PauseRules.NONE);
  private final Provider provider = call -> {
    called.add(call.eventId());
    return CompletableFuture.completedFuture(answer);
  };
  private Dispatcher dispatcher;
  private Thread loop;
  private long offset;

  private void start() {
    dispatcher = new Dispatcher(DispatcherWiring.of(CONFIG, consumer, producer,
            Map.of("api", provider), new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1),
            Clock.systemUTC(), DispatchListener.NONE)
        .withPauses(pauses::get)
        .withTime(System::nanoTime, () -> 0.5));
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

  private static MockProducer<byte[], byte[]> producer(boolean autoComplete) {
    return new MockProducer<>(autoComplete, null, new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  private void read(String... values) {
    consumer.schedulePollTask(() -> {
      for (String value : values) {
        consumer.addRecord(new ConsumerRecord<>(READY.topic(), READY.partition(), offset++,
            "acme".getBytes(UTF_8), value.getBytes(UTF_8)));
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

    CommitsKept() {
      super("earliest");
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
