package io.sluice.dispatcher.dispatch.settlement;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.SendFailure;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SettlementWriterTest {
  private final Topics topics = new Topics("t.", List.of(Duration.ofSeconds(1)));
  private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null,
      new ByteArraySerializer(), new ByteArraySerializer());
  private final List<DispatchEntry> settled = new CopyOnWriteArrayList<>();
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private volatile boolean owned = true;
  private final SettlementWriter writer = new SettlementWriter(producer, topics, Clock.systemUTC(),
      settled::add, e -> { }, timer, 10, e -> owned);

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private static DispatchEntry entry(byte[] value) {
    WorkEvent event = new WorkEvent("e1", "acme", "api", 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition("t.ready", 0), 42, 1, "acme".getBytes(UTF_8),
        value, new RecordHeaders(), event, "std", 0, null);
  }

  private static void await(String what, BooleanSupplier condition) {
    Await.until(what, Duration.ofSeconds(10), condition);
  }

  @Test
  @DisplayName("a dead letter too large for the DLQ is written without its value, saying where it is")
  void tooLargeDeadLetterWithoutValue() {
    DispatchEntry e = entry(new byte[2_000_000]);
    writer.dead(e, Reason.INVALID, "payload too large", 0);
    assertTrue(producer.errorNext(new RecordTooLargeException("2000300 bytes > max.request.size")));
    assertEquals(2, producer.history().size(), "sent again at once, smaller");
    ProducerRecord<byte[], byte[]> again = producer.history().get(1);
    assertEquals(topics.dlq(), again.topic());
    assertNull(again.value());
    assertArrayEquals(e.key(), again.key());
    assertEquals("invalid", HeaderValues.last(again.headers(), HeaderNames.REASON).orElseThrow());
    String detail = HeaderValues.last(again.headers(), HeaderNames.DETAIL).orElseThrow();
    assertTrue(detail.startsWith("payload too large") && detail.contains("2000000 bytes left out")
        && detail.contains("t.ready-0@42"), detail);
    assertTrue(settled.isEmpty(), "not settled before Kafka acknowledges it");
    assertTrue(producer.completeNext());
    assertEquals(List.of(e), settled);
    assertTrue(writer.problem().isEmpty());
  }

  @Test
  @DisplayName("a permanent failure makes the writer unhealthy, is retried with backoff, and clears when written")
  void permanentFailureReported() {
    DispatchEntry e = entry("{}".getBytes(UTF_8));
    writer.delivered(e, 200, 1);
    assertTrue(producer.errorNext(new TopicAuthorizationException(Set.of(topics.outcomes()))));
    assertTrue(writer.problem().orElseThrow().contains(topics.outcomes()), writer.problem().get());
    await("the first resend", () -> producer.history().size() == 2);
    assertTrue(producer.errorNext(new TopicAuthorizationException(Set.of(topics.outcomes()))));
    await("the second resend", () -> producer.history().size() == 3);
    assertTrue(writer.problem().isPresent(), "still refused: still unhealthy");
    assertTrue(producer.completeNext(), "the ACL was fixed");
    assertEquals(List.of(e), settled);
    assertTrue(writer.problem().isEmpty(), "healthy again");
  }

  @Test
  @DisplayName("a too-large record that is not a dead letter (an outcome) is a permanent failure")
  void tooLargeOutcomeIsPermanent() {
    writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);
    assertTrue(producer.errorNext(new RecordTooLargeException("headers too large")));
    assertTrue(writer.problem().isPresent());
    await("a resend", () -> producer.history().size() == 2);
    assertTrue(producer.history().get(1).value() != null, "an outcome is never trimmed");
  }

  @Test
  @DisplayName("a retriable failure is sent again and raises no alarm")
  void retriableFailureResent() {
    DispatchEntry e = entry("{}".getBytes(UTF_8));
    writer.defer(e, Reason.PROVIDER_5XX, "500", 100, 1);
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    assertTrue(writer.problem().isEmpty());
    await("the resend", () -> producer.history().size() == 2);
    assertTrue(producer.completeNext());
    assertEquals(List.of(e), settled);
  }

  @Test
  @DisplayName("every copy of a settlement, the one sent again included, names the record it settles")
  void everyCopyNamesWhatItSettles() {
    DispatchEntry e = entry("{}".getBytes(UTF_8));
    writer.defer(e, Reason.PROVIDER_5XX, "500", 100, 1);
    assertTrue(producer.errorNext(new TimeoutException("expired: perhaps written")));
    await("the resend", () -> producer.history().size() == 2);
    for (ProducerRecord<byte[], byte[]> copy : producer.history()) {
      List<String> names = new ArrayList<>();
      copy.headers().headers(HeaderNames.SETTLES).forEach(h -> names.add(new String(h.value(), UTF_8)));
      assertEquals(List.of("t.ready-0@42"), names);
    }
    writer.delivered(e, 200, 2);
    writer.dead(e, Reason.INVALID, "x", 2);
    assertEquals("t.ready-0@42",
        HeaderValues.last(producer.history().get(2).headers(), HeaderNames.SETTLES).orElseThrow());
    assertEquals("t.ready-0@42",
        HeaderValues.last(producer.history().get(3).headers(), HeaderNames.SETTLES).orElseThrow());
  }

  @Test
  @DisplayName("a failed settlement of a partition since revoked is not sent again: its new owner settles it")
  void revokedPartitionNotResent() {
    DispatchEntry e = entry("{}".getBytes(UTF_8));
    writer.defer(e, Reason.PROVIDER_5XX, "500", 100, 1);
    owned = false; // the partition moved to another instance
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    await("the resend's turn", () -> timer.getCompletedTaskCount() >= 1);
    assertEquals(1, producer.history().size(), "not sent again");
    assertEquals(List.of(), settled);
  }

  @Test
  @DisplayName("failures are told apart by Kafka's retriable marker, through wrapping")
  void classification() {
    assertEquals(SendFailure.TOO_LARGE, SendFailure.of(new RecordTooLargeException("x")));
    assertEquals(SendFailure.RETRIABLE, SendFailure.of(new TimeoutException("x")));
    assertEquals(SendFailure.RETRIABLE,
        SendFailure.of(new KafkaException(new NotLeaderOrFollowerException("x"))));
    assertEquals(SendFailure.PERMANENT, SendFailure.of(new TopicAuthorizationException("x")));
    assertEquals(SendFailure.PERMANENT, SendFailure.of(new InvalidTopicException("x")));
    assertEquals(SendFailure.PERMANENT, SendFailure.of(new IllegalStateException("closed")));
  }

  @Test
  @DisplayName("an outcome carries the status, attempts, latency and what the provider's capture kept")
  void outcomeCarriesTheAnswer() throws Exception {
    writer.delivered(entry("{}".getBytes(UTF_8)), 201, 3, 42L, Map.of("x-request-id", "r-9"),
        "{\"ok\":true}");

    io.sluice.schemas.event.Outcome outcome = io.sluice.schemas.serde.Json.mapper().readValue(
        producer.history().get(0).value(), io.sluice.schemas.event.Outcome.class);
    assertEquals(201, outcome.status());
    assertEquals(3, outcome.attempts());
    assertEquals(42L, outcome.latencyMs());
    assertEquals(Map.of("x-request-id", "r-9"), outcome.headers());
    assertEquals("{\"ok\":true}", outcome.body());
  }

  @Test
  @DisplayName("a settlement is handed to the sender and the caller goes on, however long the "
      + "producer's send blocks")
  void neverSendsOnTheCallersThread() throws Exception {
    CountDownLatch brokerBack = new CountDownLatch(1);
    MockProducer<byte[], byte[]> blocking = new MockProducer<>(true, null,
        new ByteArraySerializer(), new ByteArraySerializer()) {
      // Not synchronized, unlike the mock's own: the test reads history() while send waits.
      @Override
      public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record,
          Callback callback) {
        try {
          brokerBack.await(); // as send waits for a topic's metadata with the broker away
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return super.send(record, callback);
      }
    };
    ExecutorService sender = Executors.newSingleThreadExecutor();
    FakeClock clock = FakeClock.atMillis(0);
    SettlementWriter writer = new SettlementWriter(blocking, topics, Clock.systemUTC(),
        settled::add, e -> { }, timer, 10, e -> true, sender, clock::nanos);
    try {
      writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);
      writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);

      // Back here while the producer still blocks: nothing sent, both counted.
      assertEquals(0, blocking.history().size());
      assertEquals(2, writer.unacknowledged());
      assertTrue(writer.stall().isEmpty(), "just handed: calls go");
      clock.advance(Duration.ofMillis(WriteStall.OLDEST_MILLIS + 1));
      assertTrue(writer.stall().isPresent(), "unacknowledged past the bound: calls wait");

      brokerBack.countDown();
      await("both acknowledged", () -> settled.size() == 2);
      assertEquals(0, writer.unacknowledged());
      assertTrue(writer.stall().isEmpty(), "acknowledged: calls go again");
    } finally {
      brokerBack.countDown();
      sender.shutdownNow();
    }
  }

  @Test
  @DisplayName("a settlement is counted unacknowledged until Kafka acknowledges it, through its "
      + "resends; one refused for good or whose partition moved is counted no more")
  void countsWhatKafkaHasNotAcknowledged() {
    writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);
    assertEquals(1, writer.unacknowledged());
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    assertEquals(1, writer.unacknowledged(), "to be sent again: still unacknowledged");
    await("the resend", () -> producer.history().size() == 2);
    assertTrue(producer.completeNext());
    assertEquals(0, writer.unacknowledged());

    // Refused for good: a problem() of its own, not a broker away; it must not stop every call.
    writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);
    assertTrue(producer.errorNext(new TopicAuthorizationException(Set.of(topics.outcomes()))));
    assertEquals(0, writer.unacknowledged());

    await("the resend of the refused one", () -> producer.history().size() == 4);
    assertTrue(producer.completeNext(), "the ACL fixed");
    assertEquals(0, writer.unacknowledged());

    // Its partition moved before the resend: the new owner settles it.
    owned = false;
    writer.delivered(entry("{}".getBytes(UTF_8)), 200, 1);
    assertEquals(1, writer.unacknowledged());
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    await("given up: its partition moved", () -> writer.unacknowledged() == 0);
  }
}
