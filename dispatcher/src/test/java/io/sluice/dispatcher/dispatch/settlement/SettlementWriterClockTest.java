package io.sluice.dispatcher.dispatch.settlement;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.lane.ManualTimer;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Outcome;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link SettlementWriter} on a fixed clock and a timer the test drives: the times it writes and
 * the waits before it sends again, exactly, with no waiting.
 */
class SettlementWriterClockTest {
  private static final long NOW = Instant.parse("2026-11-23T10:00:00Z").toEpochMilli();
  private static final long RESEND_MILLIS = 1000;

  private final Topics topics = new Topics("t.", List.of(Duration.ofSeconds(1), Duration.ofSeconds(5)));
  private final MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null,
      new ByteArraySerializer(), new ByteArraySerializer());
  private final List<DispatchEntry> settled = new ArrayList<>();
  private final List<DispatchEntry> dropped = new ArrayList<>();
  private final ManualTimer timer = new ManualTimer();
  /** Whether the entries' partition is still this instance's. */
  private boolean owned = true;
  private final SettlementWriter writer = new SettlementWriter(producer, topics,
      Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC), settled::add, dropped::add, timer,
      RESEND_MILLIS, e -> owned);

  /**
   * Runs nothing by itself: records each delay asked for and runs a task when the test says so.
   * Refuses work once shut down, as the real timer does.
   */
  private static final class ManualTimer extends ScheduledThreadPoolExecutor {
    final List<Long> delaysMillis = new ArrayList<>();
    private final Deque<Runnable> pending = new ArrayDeque<>();

    ManualTimer() {
      super(0);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      if (isShutdown()) {
        throw new RejectedExecutionException("shut down");
      }
      delaysMillis.add(unit.toMillis(delay));
      pending.add(task);
      return null;
    }

    void runNext() {
      pending.remove().run();
    }

    boolean idle() {
      return pending.isEmpty();
    }
  }

  private static DispatchEntry entry(Long firstSeen) {
    WorkEvent event = new WorkEvent("e1", "acme", "api", 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition("t.ready", 0), 42, 1, "acme".getBytes(UTF_8),
        "{}".getBytes(UTF_8), new RecordHeaders(), event, "std", 0, firstSeen);
  }

  private ProducerRecord<byte[], byte[]> only() {
    assertEquals(1, producer.history().size());
    return producer.history().get(0);
  }

  @Test
  @DisplayName("an outcome is timestamped and marked delivered at the clock's now, keeping when the event was first seen")
  void outcomeAtNow() throws Exception {
    writer.delivered(entry(NOW - 5_000), 200, 2);
    ProducerRecord<byte[], byte[]> r = only();
    assertEquals(topics.outcomes(), r.topic());
    assertEquals(NOW, r.timestamp());
    Outcome outcome = Json.mapper().readValue(r.value(), Outcome.class);
    assertEquals(NOW, outcome.deliveredAt());
    assertEquals(NOW - 5_000, outcome.firstSeen());
    assertEquals(2, outcome.attempts());
  }

  @Test
  @DisplayName("a deferral is due at now plus its wait, on the longest ladder step not longer than the wait")
  void deferralDueAfterItsWait() {
    writer.defer(entry(null), Reason.PROVIDER_5XX, "500", 7_000, 1);
    writer.defer(entry(null), Reason.PROVIDER_5XX, "500", 2_500, 1);
    writer.defer(entry(null), Reason.PROVIDER_5XX, "500", -300, 1);
    List<ProducerRecord<byte[], byte[]>> sent = producer.history();
    assertEquals(List.of(topics.delay(Duration.ofSeconds(5)), topics.delay(Duration.ofSeconds(1)),
        topics.delay(Duration.ofSeconds(1))), sent.stream().map(ProducerRecord::topic).toList());
    assertEquals(List.of(NOW + 7_000, NOW + 2_500, NOW), sent.stream()
        .map(r -> HeaderValues.lastLong(r.headers(), HeaderNames.NOT_BEFORE).orElseThrow()).toList(),
        "a negative wait is due now, never in the past");
    assertTrue(sent.stream().allMatch(r -> r.timestamp() == NOW), "placed now: the relay measures from it");
  }

  @Test
  @DisplayName("a dead letter of an event never seen before counts as first seen now")
  void deadLetterFirstSeenNow() {
    writer.dead(entry(null), Reason.INVALID, "bad", 0);
    ProducerRecord<byte[], byte[]> r = only();
    assertEquals(topics.dlq(), r.topic());
    assertEquals(NOW, r.timestamp());
    assertEquals(NOW, DeadLetter.fromHeaders(r.headers()).firstSeen());
  }

  @Test
  @DisplayName("a permanent failure is sent again after a wait doubling from the resend interval up to a minute")
  void permanentBackoffDoublesToAMinute() {
    DispatchEntry e = entry(null);
    writer.delivered(e, 200, 1);
    for (int i = 0; i < 9; i++) {
      assertTrue(producer.errorNext(new TopicAuthorizationException(Set.of(topics.outcomes()))));
      timer.runNext();
    }
    assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 60_000L, 60_000L, 60_000L),
        timer.delaysMillis);
    assertTrue(writer.problem().isPresent(), "still refused: still unhealthy");
    assertTrue(producer.completeNext());
    assertEquals(List.of(e), settled);
    assertTrue(writer.problem().isEmpty());
  }

  @Test
  @DisplayName("a retriable failure is sent again after the resend interval every time, without doubling")
  void retriableWaitsTheSameEachTime() {
    writer.delivered(entry(null), 200, 1);
    for (int i = 0; i < 3; i++) {
      assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
      timer.runNext();
    }
    assertEquals(List.of(RESEND_MILLIS, RESEND_MILLIS, RESEND_MILLIS), timer.delaysMillis);
    assertEquals(4, producer.history().size());
  }

  @Test
  @DisplayName("once closed, a resend that falls due sends nothing and a failure schedules nothing")
  void closedSendsNothingMore() {
    writer.delivered(entry(null), 200, 1);
    writer.delivered(entry(null), 200, 1);
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    writer.close();
    timer.runNext();
    assertEquals(2, producer.history().size(), "the resend was not sent");
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")));
    assertTrue(timer.idle(), "no resend after close");
    assertEquals(List.of(), settled);
  }

  @Test
  @DisplayName("a settlement given up because its partition moved lets its bytes go, as one written does")
  void droppedSettlementReleasesItsBytes() {
    // Wired as the dispatcher wires it: written or given up, the entry leaves the byte budget.
    ReadBudget budget = new ReadBudget(Set.of("api"), 100, 1_000_000);
    DispatchEntry moved = entry(null);
    DispatchEntry written = entry(null);
    budget.hold(moved);
    budget.hold(written);
    writer.defer(moved, Reason.PROVIDER_5XX, "500", 100, 1);
    writer.defer(written, Reason.PROVIDER_5XX, "500", 100, 1);
    assertTrue(producer.errorNext(new NotEnoughReplicasException("isr")), "a broker restarting");
    assertTrue(producer.completeNext());
    owned = false; // the partition moved before the resend's turn
    timer.runNext();
    settled.forEach(budget::release);
    dropped.forEach(budget::release);
    assertEquals(2, producer.history().size(), "not sent again: the new owner settles it");
    assertEquals(List.of(written), settled);
    assertEquals(List.of(moved), dropped);
    assertEquals(0, budget.heldBytes("api"), "nothing held for an entry no longer ours");
  }
}
