package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.Dispatcher;
import io.sluice.dispatcher.dispatch.DispatcherClients;
import io.sluice.dispatcher.dispatch.DispatcherWiring;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.dispatcher.dispatch.offsets.AdminTopicIdentity;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog.Delivered;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.RedisDeliveredLog;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisConnection;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partition's new owner does not call again what the delivered log says its previous owner
 * delivered beyond the last commit (a previous owner that died, or lost the partition while the
 * broker was away, before any commit went through): it writes their outcomes instead.
 */
@ExtendWith(RealServers.class)
class DeliveredLogTakeoverIT {
  @Test
  @DisplayName("records delivered beyond the commit by the previous owner are settled with an outcome, not called again")
  void aNewOwnerSkipsWhatTheDeliveredLogHolds(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("delivered");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      List<Ready> events = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        events.add(new Ready("d" + i, "tenant-" + (i % 3), "std", provider));
      }
      Pipeline.produceReady(kafka, topics, events); // offsets 0..19 of the only partition
      Set<String> ids = new LinkedHashSet<>();
      events.forEach(e -> ids.add(e.id()));
      List<AutoCloseable> closing = new ArrayList<>();
      try (RedisConnection connection = RedisConnection.open(config.redis());
          AdminTopicIdentity identity = AdminTopicIdentity.create(config, "ids", Duration.ofSeconds(10))) {
        TopicPartition ready0 = new TopicPartition(topics.ready(), 0);
        DeliveredLog log = new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity);
        log.since(ready0, 0).toCompletableFuture().get(10, TimeUnit.SECONDS); // assigned: its ids are known
        List<Delivered> previousOwner = new ArrayList<>();
        for (long offset = 5; offset < 15; offset++) {
          previousOwner.add(new Delivered(offset, 200, 1));
        }
        log.record(ready0, -1, previousOwner).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(10, log.since(ready0, 0).toCompletableFuture().get(5, TimeUnit.SECONDS).size());

        Map<String, String> settled;
        long skipped;
        try (Running dispatcher = new Running(config, "dispatcher-1", Providers.http(config),
            Providers.redisLeak(config, closing), log, new Tally())) {
          settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
          skipped = dispatcher.dispatcher.skippedAsDelivered();
        } finally {
          for (AutoCloseable c : closing) {
            c.close();
          }
        }
        settled.forEach((id, where) -> assertEquals("outcome", where, id));
        Set<String> called = new TreeSet<>();
        mock.calls().forEach(c -> called.add(c.idempotencyKey()));
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 20; i++) {
          if (i < 5 || i >= 15) {
            expected.add("d" + i);
          }
        }
        assertEquals(expected, called, "only the records the log did not hold were called");
        assertEquals(10, skipped);
      }
    }
  }

  /**
   * The chaos run's double settlement, built on a real broker (issue 34): the first dispatcher
   * calls both events, the broker writes their outcomes, and their acknowledgements reach it late
   * (held here, as a broker restart holds them); meanwhile a second dispatcher joins and takes one
   * partition, finds its call "delivered, not settled" in the log, and must not write a second
   * outcome: once the acknowledgements come, the log says settled and it settles the record
   * without a write.
   */
  @Test
  @DisplayName("an outcome acknowledged after its partition moved is the event's only outcome")
  void anOutcomeAcknowledgedLateIsNotWrittenAgainByTheNewOwner(KafkaBroker kafka,
      RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("late");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      try (KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka)) {
        for (int p = 0; p < 2; p++) {
          Ready e = new Ready("late" + p, "tenant-" + p, "std", provider);
          producer.send(new ProducerRecord<>(topics.ready(), p, e.tenant().getBytes(UTF_8), e.json()))
              .get(30, TimeUnit.SECONDS);
        }
      }
      List<AutoCloseable> closing = new ArrayList<>();
      try (RedisConnection connection = RedisConnection.open(config.redis());
          AdminTopicIdentity identity = AdminTopicIdentity.create(config, "ids", Duration.ofSeconds(10));
          Admin admin = kafka.admin()) {
        LateAcknowledgements first = new LateAcknowledgements(config);
        Dispatcher one = start(config, "dispatcher-1", first, closing,
            new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity));
        Await.until("both outcomes written by the broker", Duration.ofSeconds(60),
            () -> Pipeline.readAll(kafka, topics.outcomes(), Duration.ofSeconds(30)).size(), n -> n == 2);
        DeliveredLog reader = new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity);
        Await.until("both calls in the log, delivered and not settled", Duration.ofSeconds(30),
            () -> List.of(0, 1).stream().allMatch(p -> {
              Delivered d = reader.since(new TopicPartition(topics.ready(), p), 0).toCompletableFuture()
                  .join().get(0L);
              return d != null && !d.settled();
            }));

        Dispatcher two = start(config, "dispatcher-2",
            DispatcherClients.producer(config, "dispatcher-2"), closing,
            new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity));
        Await.until("the second dispatcher owning a partition, its record read and found delivered",
            Duration.ofSeconds(60), () -> two.assignedReadyPartitions() == 1 && two.skippedAsDelivered() == 1);
        first.acknowledge(); // the broker's answers, at last

        Await.until("both partitions committed past their record", Duration.ofSeconds(60),
            () -> committed(admin, config.dispatcher().groupId(), topics), c -> c == 2);
        Map<String, Integer> outcomes = new TreeMap<>();
        Pipeline.readAll(kafka, topics.outcomes(), Duration.ofSeconds(30)).forEach(r ->
            outcomes.merge(new String(r.headers().lastHeader(HeaderNames.EVENT_ID).value(), UTF_8), 1,
                Integer::sum));
        assertEquals(Map.of("late0", 1, "late1", 1), outcomes, "one outcome record per event");
        assertEquals(2, mock.callCount(), "each called once");
        assertEquals(1, one.assignedReadyPartitions());
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
    }
  }

  /** A dispatcher on its own thread, stopped (cleanly) through {@code closing}. */
  private static Dispatcher start(SluiceConfig config, String name,
      Producer<byte[], byte[]> producer, List<AutoCloseable> closing,
      DeliveredLog log) {
    Dispatcher d = new Dispatcher(DispatcherWiring.of(config, DispatcherClients.consumer(config, name),
            producer, Providers.http(config), Providers.redisLeak(config, closing), Clock.systemUTC(),
            DispatchListener.NONE)
        .withDeliveredLog(log));
    Thread loop = new Thread(d, name);
    loop.start();
    closing.add(0, () -> {
      d.close();
      loop.join(Duration.ofSeconds(30).toMillis());
    });
    return d;
  }

  /** How many partitions of {@code sluice.ready} the group committed beyond their first record. */
  private static int committed(Admin admin, String group, Topics topics) {
    try {
      return (int) admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
          .get(5, TimeUnit.SECONDS).entrySet().stream()
          .filter(e -> e.getKey().topic().equals(topics.ready()) && e.getValue() != null
              && e.getValue().offset() >= 1).count();
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * The dispatcher's producer, but each write's acknowledgement reaches the dispatcher only once
   * {@link #acknowledge} is called: the broker has written the record, its answer is late (a
   * broker restart). Flushing waits for the broker, not for the held answers.
   */
  private static final class LateAcknowledgements extends KafkaProducer<byte[], byte[]> {
    private final List<Runnable> held = new ArrayList<>();
    private boolean holding = true;

    LateAcknowledgements(SluiceConfig config) {
      super(DispatcherClients.producerSettings(config, "dispatcher-1"), new ByteArraySerializer(),
          new ByteArraySerializer());
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
      if (callback == null) {
        return super.send(record, null);
      }
      return super.send(record, (metadata, error) -> {
        synchronized (this) {
          if (holding) {
            held.add(() -> callback.onCompletion(metadata, error));
            return;
          }
        }
        callback.onCompletion(metadata, error);
      });
    }

    void acknowledge() {
      List<Runnable> answers;
      synchronized (this) {
        holding = false;
        answers = List.copyOf(held);
        held.clear();
      }
      answers.forEach(Runnable::run);
    }
  }

  @Test
  @DisplayName("a topic deleted and created again: new records at the old offsets are called, the old incarnation's log does not count")
  void aRecreatedTopicIsNotTheOldOne(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("recreated");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      TopicPartition ready0 = new TopicPartition(topics.ready(), 0);
      List<AutoCloseable> closing = new ArrayList<>();
      try (RedisConnection connection = RedisConnection.open(config.redis());
          AdminTopicIdentity identity = AdminTopicIdentity.create(config, "ids", Duration.ofSeconds(10))) {
        // The old topic's owner delivered offsets 0..9, and wrote so, under the old topic's ids.
        DeliveredLog oldOwner = new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity);
        oldOwner.since(ready0, 0).toCompletableFuture().get(10, TimeUnit.SECONDS);
        Object oldIds = identity.of(topics.ready()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        List<Delivered> old = new ArrayList<>();
        for (long offset = 0; offset < 10; offset++) {
          old.add(new Delivered(offset, 200, 1));
        }
        oldOwner.record(ready0, -1, old).toCompletableFuture().get(5, TimeUnit.SECONDS);

        // Within the log's TTL the topic is deleted and created again, and new events land at 0..9.
        try (Admin admin = kafka.admin()) {
          admin.deleteTopics(List.of(topics.ready())).all().get(30, TimeUnit.SECONDS);
          Await.until("the topic to be deleted", Duration.ofSeconds(60), () -> {
            try {
              return !admin.listTopics().names().get(5, TimeUnit.SECONDS).contains(topics.ready());
            } catch (Exception e) {
              return false;
            }
          });
        }
        kafka.createTopic(topics.ready(), 1);
        assertNotEquals(identity.of(topics.ready()).toCompletableFuture().get(10, TimeUnit.SECONDS),
            oldIds, "a new incarnation");
        List<Ready> events = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          events.add(new Ready("n" + i, "tenant-" + (i % 3), "std", provider));
        }
        Pipeline.produceReady(kafka, topics, events);
        Set<String> ids = new LinkedHashSet<>();
        events.forEach(e -> ids.add(e.id()));

        long skipped;
        try (Running dispatcher = new Running(config, "dispatcher-1", Providers.http(config),
            Providers.redisLeak(config, closing),
            new RedisDeliveredLog(connection.commands(), config.dispatcher().groupId(), identity), new Tally())) {
          Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
          skipped = dispatcher.dispatcher.skippedAsDelivered();
        } finally {
          for (AutoCloseable c : closing) {
            c.close();
          }
        }
        Set<String> called = new TreeSet<>();
        mock.calls().forEach(c -> called.add(c.idempotencyKey()));
        assertEquals(new TreeSet<>(ids), called, "every new record was called");
        assertEquals(0, skipped, "nothing taken for delivered on the old topic's word");
      }
    }
  }

  @Test
  @DisplayName("records deferred through the ladder are written to the log as settled, for an owner whose commit does not go through")
  void deferralsAreLoggedAsSettled(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 1000, Duration.ofMillis(2))) {
      String provider = Providers.uniqueName("deferred");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      mock.answerNext(10, new MockProvider.Answer(500, null)); // every event is deferred once
      List<Ready> events = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        events.add(new Ready("f" + i, "tenant-" + (i % 3), "std", provider));
      }
      Pipeline.produceReady(kafka, topics, events); // offsets 0..9
      Map<Long, Delivered> logged = new java.util.concurrent.ConcurrentHashMap<>();
      DeliveredLog memory = new DeliveredLog() {
        @Override
        public java.util.concurrent.CompletionStage<Void> record(TopicPartition partition, long keepFrom,
            List<Delivered> delivered) {
          delivered.forEach(d -> logged.merge(d.offset(), d, (a, b) -> a.settled() ? a : b));
          return java.util.concurrent.CompletableFuture.completedFuture(null);
        }

        @Override
        public java.util.concurrent.CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
          return java.util.concurrent.CompletableFuture.completedFuture(Map.of());
        }
      };
      List<AutoCloseable> closing = new ArrayList<>();
      try (Running dispatcher = new Running(config, "dispatcher-1", Providers.http(config),
          Providers.redisLeak(config, closing), memory, new Tally())) {
        Await.until("every deferral to be in the log as settled", Duration.ofSeconds(60),
            () -> java.util.stream.LongStream.range(0, 10)
                .allMatch(o -> logged.containsKey(o) && logged.get(o).settled()));
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      assertEquals(10, mock.callCount(), "one call each, all answered 500");
    }
  }
}
