package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.TestConfigs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 34 (2), the fault built: a retriable produce failure at the gate (what a batch expiring
 * during a broker restart gives) while events are pending in the limit node. Under
 * {@code exactly_once_v2} Kafka Streams answers it with a {@code TaskCorruptedException}: the task
 * is closed dirty, its transaction aborted, and the task revived with the same processor objects,
 * reading its input again from the last commit. Events still pending from before the close must
 * not be routed into the revived task's transaction beside the re-read ones: each event is
 * admitted once.
 *
 * <p>Red before (issue 34, 2): 1,116 of the 2,000 ids reached ready, e99..e999 missing, although
 * the gate's group had committed inbound to offset 2,000. Not a stall: input lost. Kafka Streams
 * 4.4 answered the retriable error with a corrupted task, triggered a rebalance, closed the
 * revived task clean there and created it again without seeking back to the last commit, so
 * the records it had fetched past the commit were skipped. The gate's production exception
 * handler now fails the thread on a retriable error ({@link TooLargeOutputHandler}); the thread
 * is replaced and reads again from the last commit.
 */
@ExtendWith(RealServers.class)
class GateTaskRevivalIT {
  private static final String CONFIG = """
      ladder: [1s, 5s, 30s]
      reservationHorizon: 2s
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 500/s
          onRedisDown: fail_closed
          quotas: { free: { capacity: 100000, refill: 100000/s } }
      gate: { streamThreads: 1, leaseTarget: 0ms }
      """;

  /**
   * Fails the {@code failAt}-th record sent to {@code topic} as a batch expiring would, once.
   * {@code beforeReturn}: the callback is told before {@code send} returns. Told later (on another
   * thread, as the producer's I/O thread would), a commit may come between: the real producer,
   * which never saw the record, then commits the transaction without it, where a real expiry
   * would have failed the commit; a test counting every record must not leave that window.
   */
  static final class FailOneSend extends KafkaProducer<byte[], byte[]> {
    private final String topic;
    private final int failAt;
    private final AtomicInteger sent;
    private final AtomicInteger injected;
    private final boolean beforeReturn;

    FailOneSend(Map<String, Object> config, String topic, int failAt, AtomicInteger sent, AtomicInteger injected,
        boolean beforeReturn) {
      super(config, new ByteArraySerializer(), new ByteArraySerializer());
      this.topic = topic;
      this.failAt = failAt;
      this.sent = sent;
      this.injected = injected;
      this.beforeReturn = beforeReturn;
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
      if (record.topic().equals(topic) && sent.incrementAndGet() == failAt && injected.compareAndSet(0, 1)) {
        // As a batch expiring does: the record is not written, and the producer's I/O thread
        // tells the callback, after send returned; the stream thread finds it at a later send.
        TimeoutException expired = new TimeoutException("injected by GateTaskRevivalIT: batch expired");
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        Runnable tell = () -> {
          callback.onCompletion(null, expired);
          result.completeExceptionally(expired);
        };
        if (beforeReturn) {
          tell.run();
        } else {
          CompletableFuture.runAsync(tell);
        }
        return result;
      }
      return super.send(record, callback);
    }
  }

  /** Kafka clients whose producers fail the {@code failAt}-th record sent to {@code topic}, once. */
  static DefaultKafkaClientSupplier failingOnce(String topic, int failAt, AtomicInteger sent, AtomicInteger injected,
      boolean beforeReturn) {
    return new DefaultKafkaClientSupplier() {
      @Override
      public Producer<byte[], byte[]> getProducer(Map<String, Object> producerConfig) {
        return new FailOneSend(producerConfig, topic, failAt, sent, injected, beforeReturn);
      }
    };
  }

  @Test
  void shouldAdmitEveryEventOnceWhenATaskIsRevivedAfterARetriableProduceFailure(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 1);
    int events = 2000;
    try (KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      for (int i = 0; i < events; i++) {
        String tenant = "tenant-" + (i % 200);
        String json = "{\"id\":\"e" + i + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"payments-api\"}";
        p.send(new ProducerRecord<>(topics.inbound(), bytes(tenant), bytes(json)));
      }
      p.flush();
    }
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger injected = new AtomicInteger();
    // The 100th admission fails: by then the first poll's events are in the limit node, many of
    // them still waiting for their batch of calls or behind it.
    DefaultKafkaClientSupplier clients = failingOnce(topics.ready(), 100, sent, injected, false);
    try (Gate gate = Gate.start(new LiveConfig(config), new GateListener() {},
        Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100), clients)) {
      List<ConsumerRecord<byte[], byte[]>> ready = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.ready()), all -> all.stream().map(GateTaskRevivalIT::idOf).distinct().count() >= events,
          Duration.ofSeconds(90));
      assertEquals(1, injected.get(), "the produce failure was injected");
      Map<String, Integer> admissions = new TreeMap<>();
      ready.forEach(r -> admissions.merge(idOf(r), 1, Integer::sum));
      Map<String, Integer> twice = new TreeMap<>();
      admissions.forEach((id, n) -> {
        if (n > 1) {
          twice.put(id, n);
        }
      });
      assertEquals(events, admissions.size(), "every event admitted");
      assertTrue(twice.isEmpty(), twice.size() + " events admitted more than once: " + twice);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String idOf(ConsumerRecord<byte[], byte[]> r) {
    String v = new String(r.value(), StandardCharsets.UTF_8);
    int i = v.indexOf("\"id\":\"") + 6;
    return v.substring(i, v.indexOf('"', i));
  }
}
