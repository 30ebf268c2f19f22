package io.sluice.dispatcher.dispatch.intake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.offsets.PartitionTakeover;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.embedded.InJvmKafkaBroker;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.HoldingProxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A settlement whose produce timed out after the broker wrote it (issue 34, 5), built for real:
 * the dispatcher's producer reaches a real broker through a proxy that holds the broker's replies,
 * so the broker appends the retry and its acknowledgement never arrives; the producer gives up
 * ({@code delivery.timeout.ms}), the writer sends the retry again, and the replies flow again.
 * The delay topic then holds the retry twice: Kafka's idempotence covers the producer's own
 * retries of a batch, not a record sent anew. Both copies come back to {@code sluice.ready}
 * (as the relay returns them: key, value, headers) and are read there: one is queued for its
 * call, the other is not (before, both were: a second provider call).
 */
class SettlementAfterTimeoutIT {
  private static final Topics TOPICS = new Topics("timeout-it.", List.of(Duration.ofSeconds(1)));
  private static final String EVENT = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\"}";
  private static final String WARM_UP = "timeout-it.warm-up";

  @Test
  @Timeout(120)
  void aRetryWrittenTwiceAfterAProduceTimeoutIsQueuedForOneCall() throws Exception {
    String delay = TOPICS.delay(Duration.ofSeconds(1));
    try (HoldingProxy proxy = HoldingProxy.start();
        InJvmKafkaBroker kafka = InJvmKafkaBroker.startBehind("localhost:" + proxy.port());
        Admin admin = kafka.admin()) {
      proxy.forwardTo(kafka.behindPort());
      kafka.createTopics(Map.of(delay, 1, WARM_UP, 1));
      TopicPartition written = new TopicPartition(delay, 0);
      Resends timer = new Resends();
      List<DispatchEntry> settled = new CopyOnWriteArrayList<>();
      KafkaProducer<byte[], byte[]> producer = dispatcherProducer(proxy.port());
      SettlementWriter writer = new SettlementWriter(producer, TOPICS, Clock.systemUTC(),
          settled::add, e -> { }, timer, 100, e -> true);
      try {
        // Its metadata, producer id and connection to the broker in hand before the replies are
        // held: a connection made while they are held never gets past its handshake, and the
        // retry would never reach the broker.
        producer.partitionsFor(delay);
        producer.send(new ProducerRecord<>(WARM_UP, new byte[0])).get(30, TimeUnit.SECONDS);

        proxy.holdReplies();
        writer.defer(entry(), Reason.PROVIDER_5XX, "503", 0, 1);
        Await.until("the broker wrote the retry", Duration.ofSeconds(10),
            () -> end(admin, written) == 1);
        assertEquals(1, timer.await(), "the writer saw its produce time out");
        proxy.releaseReplies();
        Await.until("the retry's settlement acknowledged", Duration.ofSeconds(30),
            () -> !settled.isEmpty());
      } finally {
        writer.close();
        timer.shutdownNow();
        producer.close(Duration.ofSeconds(5));
      }

      List<ConsumerRecord<byte[], byte[]>> copies = read(kafka, written, end(admin, written));
      assertEquals(2, copies.size(), "written by the broker, timed out, sent again");
      OwnedPartitions owned = new OwnedPartitions();
      TopicPartition ready = new TopicPartition(TOPICS.ready(), 0);
      owned.assign(ready, new PartitionTakeover.Inherited(0, SettledOffsets.NONE, Map.of()));
      RecordIntake intake = new RecordIntake(new ReadyRecordCheck(ReadyRecordCheckTest.CONFIG));
      List<RecordIntake.Action> actions = new ArrayList<>();
      long offset = 10;
      for (ConsumerRecord<byte[], byte[]> copy : copies) {
        actions.add(intake.admit(new ConsumerRecord<>(ready.topic(), 0, offset++, 0L,
            TimestampType.CREATE_TIME, -1, -1, copy.key(),
            copy.value(), copy.headers(), Optional.empty()),
            owned.get(ready), Instant.now()));
      }
      assertEquals(1, actions.stream().filter(RecordIntake.Queue.class::isInstance).count(),
          () -> "one call of the retry: " + actions);
    }
  }

  /** The dispatcher's producer settings (DispatcherClients.producer), with timeouts of 1 s. */
  private static KafkaProducer<byte[], byte[]> dispatcherProducer(int port) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + port,
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 10,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1000,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 1500),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static DispatchEntry entry() {
    WorkEvent event = new WorkEvent("e", "t", "api", 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition(TOPICS.ready(), 0), 7, 1, "t".getBytes(UTF_8),
        EVENT.getBytes(UTF_8), new RecordHeaders(),
        event, "std", 0, null);
  }

  private static long end(Admin admin, TopicPartition tp) {
    try {
      return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<ConsumerRecord<byte[], byte[]>> read(InJvmKafkaBroker kafka,
      TopicPartition tp, long end) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      Await.until("read to " + end, Duration.ofSeconds(30), () -> {
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
        return consumer.position(tp) >= end;
      });
    }
    return records;
  }

  /** The writer's timer, telling when the first resend was scheduled (a produce failed). */
  private static final class Resends extends ScheduledThreadPoolExecutor {
    private final CountDownLatch first = new CountDownLatch(1);

    Resends() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      first.countDown();
      return super.schedule(command, delay, unit);
    }

    /** 1 once a resend was scheduled (within 30 s), else 0. */
    long await() throws InterruptedException {
      return first.await(30, TimeUnit.SECONDS) ? 1 : 0;
    }
  }
}
