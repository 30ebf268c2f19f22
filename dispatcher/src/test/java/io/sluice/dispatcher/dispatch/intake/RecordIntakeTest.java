package io.sluice.dispatcher.dispatch.intake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.topic.HeaderNames;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What becomes of each record read from sluice.ready before it reaches a lane. */
class RecordIntakeTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String EVENT = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\"%s}";

  private final RecordIntake intake =
      new RecordIntake(new ReadyRecordCheck(ReadyRecordCheckTest.CONFIG));

  @Test
  void shouldQueueAWellFormedEventWithItsTierAndAttempts() {
    OwnedPartitions.Assignment assignment = assignment(Map.of());
    ConsumerRecord<byte[], byte[]> record = record(7, "");
    record.headers().add(HeaderNames.ATTEMPT, "2".getBytes(UTF_8));
    DispatchEntry entry = assertInstanceOf(RecordIntake.Queue.class,
        intake.admit(record, assignment, NOW)).entry();
    assertEquals(7, entry.offset());
    assertEquals(assignment.generation(), entry.generation());
    assertEquals("std", entry.tier());
    assertEquals(2, entry.attempts());
    assertEquals(OptionalLong.of(7), assignment.offsets().committable(), "read and unsettled");
  }

  @Test
  void shouldSkipASecondCopyOfASettlementAndSettleItsOffset() {
    OwnedPartitions.Assignment assignment = assignment(Map.of());
    ConsumerRecord<byte[], byte[]> first = record(7, "");
    first.headers().add(HeaderNames.SETTLES, "ready-0@3".getBytes(UTF_8));
    ConsumerRecord<byte[], byte[]> second = record(8, "");
    second.headers().add(HeaderNames.SETTLES, "ready-0@3".getBytes(UTF_8));
    ConsumerRecord<byte[], byte[]> other = record(9, "");
    other.headers().add(HeaderNames.SETTLES, "ready-0@4".getBytes(UTF_8));

    assertInstanceOf(RecordIntake.Queue.class, intake.admit(first, assignment, NOW));
    assertEquals(new RecordIntake.SecondCopy("ready-0@3"),
        intake.admit(second, assignment, NOW), "the retry written twice: one call");
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(other, assignment, NOW));
    assertEquals(OptionalLong.of(7), assignment.offsets().committable(),
        "7 unsettled; 8 settled, passed once 7 is");
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(10, ""), assignment, NOW),
        "no name, no copy: an event from the gate");
  }

  @Test
  void shouldSkipARecordThePreviousOwnerSettledWithoutCallingIt() {
    OwnedPartitions.Assignment assignment = new OwnedPartitions.Assignment(1,
        OwnedPartitions.newLedger(SettledOffsets.of(7, 8)), new java.util.HashMap<>());
    assertInstanceOf(RecordIntake.SettledBefore.class,
        intake.admit(record(7, ""), assignment, NOW));
    assertEquals(OptionalLong.of(8), assignment.offsets().committable(), "settled at once");
  }

  @Test
  void shouldSkipARecordReadAgainByTheSameAssignmentInsteadOfStoppingTheDispatcher() {
    OwnedPartitions.Assignment assignment = assignment(Map.of());
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(7, ""), assignment, NOW));
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(9, ""), assignment, NOW));
    // The consumer's position went back (a reset after an out-of-range fetch, say).
    RecordIntake.ReadAgain again = assertInstanceOf(RecordIntake.ReadAgain.class,
        intake.admit(record(8, ""), assignment, NOW));
    assertEquals(8, again.offset());
    assertInstanceOf(RecordIntake.ReadAgain.class, intake.admit(record(9, ""), assignment, NOW));
    assertEquals(OptionalLong.of(7), assignment.offsets().committable(), "the books are unchanged");
    assertEquals(2, assignment.offsets().waiting(), "7 and 9, once each");
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(10, ""), assignment, NOW),
        "reading goes on past them");
  }

  @Test
  void shouldSkipARecordTheLogSaysWasSettledBeyondTheCommitWithoutWritingItAgain() {
    // Deferred through the ladder by the previous owner, acknowledged, and its commit never went
    // through (the coordinator away at a broker restart): writing the deferral again would bring
    // the event back twice, and it would be called twice.
    OwnedPartitions.Assignment assignment = assignment(Map.of(7L, DeliveredLog.Delivered.settledAt(7)));
    assertInstanceOf(RecordIntake.SettledBefore.class, intake.admit(record(7, ""), assignment, NOW));
    assertEquals(OptionalLong.of(8), assignment.offsets().committable(), "settled at once");
    assertTrue(assignment.deliveredBefore().isEmpty(), "read once");
  }

  @Test
  void shouldDeadLetterAMalformedRecordBeforeAnyLeakSlot() {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("ready", 0, 7, null, "{\"id\":\"e\"}".getBytes(UTF_8));
    record.headers().add(HeaderNames.ATTEMPT, "3".getBytes(UTF_8));
    RecordIntake.Malformed m = assertInstanceOf(RecordIntake.Malformed.class,
        intake.admit(record, assignment(Map.of()), NOW));
    assertEquals(Reason.INVALID, m.reason());
    assertNull(m.entry().event());
    assertEquals(3, m.entry().attempts(), "the dead letter keeps the attempts it had");
  }

  @Test
  void shouldWriteTheOutcomeOfACallDeliveredBeforeInsteadOfCallingAgain() {
    DeliveredLog.Delivered delivered = new DeliveredLog.Delivered(7, 201, 2);
    OwnedPartitions.Assignment assignment = assignment(Map.of(7L, delivered));
    RecordIntake.DeliveredBefore d = assertInstanceOf(RecordIntake.DeliveredBefore.class,
        intake.admit(record(7, ""), assignment, NOW));
    assertEquals(delivered, d.delivered());
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(8, ""), assignment, NOW),
        "only the offset that was delivered");
    assertTrue(assignment.deliveredBefore().isEmpty(), "read once");
  }

  @Test
  void shouldExpireAnEventPastItsDeadlineWithoutACall() {
    String deadline = ",\"deadline\":\"2025-12-31T23:59:59Z\"";
    RecordIntake.Expired x = assertInstanceOf(RecordIntake.Expired.class,
        intake.admit(record(7, deadline), assignment(Map.of()), NOW));
    assertTrue(x.detail().contains("2025-12-31T23:59:59Z"), x.detail());
    assertInstanceOf(RecordIntake.Queue.class, intake.admit(record(8, deadline),
        assignment(Map.of()), Instant.parse("2025-12-31T23:59:59Z")), "at its deadline: still on time");
  }

  private static OwnedPartitions.Assignment assignment(Map<Long, DeliveredLog.Delivered> before) {
    return new OwnedPartitions.Assignment(4, OwnedPartitions.newLedger(SettledOffsets.NONE), new java.util.HashMap<>(before));
  }

  /** A record at {@code offset} of a well-formed event, with {@code fields} added to it. */
  private static ConsumerRecord<byte[], byte[]> record(long offset, String fields) {
    return new ConsumerRecord<>("ready", 0, offset, "t".getBytes(UTF_8),
        String.format(EVENT, fields).getBytes(UTF_8));
  }
}
