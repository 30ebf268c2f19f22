package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Settlements written twice, counted apart from calls made twice. */
class SettlementCopiesTest {
  private static ConsumerRecord<byte[], byte[]> record(String value, String notBefore) {
    ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 0, "k".getBytes(
        StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    r.headers().add("sluice-not-before", notBefore.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  @Test
  void shouldCountARetryResentAsItWasButNotAnEventDeferredAgainAtAnotherTime() {
    SettlementCopies tally = new SettlementCopies();
    String retry = SettlementCopies.signature(record("{\"id\":\"e1\"}", "1000"));
    tally.add("delay.5s", retry, "e1", false);
    tally.add("delay.5s", retry, "e1", false); // resent after a produce timeout: a second call later
    tally.add("delay.5s", SettlementCopies.signature(record("{\"id\":\"e1\"}", "9000")), "e1",
        false); // parked again, a later turn: a settlement of its own
    Map<String, Object> f = tally.figures(Map.of("e1", 1));
    assertEquals(1L, f.get("identicalCopies"));
    assertEquals(List.of("1 settlements written twice (a ready record settled twice, or identical records) {delay.5s=1}"),
        SettlementCopies.failures(f));
  }

  @Test
  void shouldCountAnEventEndedMoreOftenThanDelivered() {
    SettlementCopies tally = new SettlementCopies();
    tally.add("outcomes", "a", "e1", true);
    tally.add("outcomes", "b", "e1", true); // ended again without a call
    tally.add("outcomes", "c", "e2", true);
    tally.add("outcomes", "d", "e2", true); // delivered twice (a duplicate call): two outcomes due
    tally.add("dlq", "e", "e3", true);
    Map<String, Object> f = tally.figures(Map.of("e1", 1, "e2", 2));
    assertEquals(1L, f.get("extraEndings"));
    assertEquals(List.of("e1"), f.get("extraEndingExamples"));
    assertEquals(0L, f.get("identicalCopies"));
  }

  private static ConsumerRecord<byte[], byte[]> ending(String value, String settles, String writer) {
    return ending(value, settles, writer, 1000);
  }

  private static ConsumerRecord<byte[], byte[]> ending(String value, String settles, String writer,
      long timestamp) {
    ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 0, timestamp,
        TimestampType.CREATE_TIME, 1, value.length(), "k".getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), new RecordHeaders(), Optional.empty());
    r.headers().add("sluice-settles", settles.getBytes(StandardCharsets.UTF_8));
    if (writer != null) {
      r.headers().add("sluice-writer", writer.getBytes(StandardCharsets.UTF_8));
    }
    return r;
  }

  @Test
  void shouldCountAnEndingWrittenAgainWhateverStampOrTopicTheCopyHas() {
    String delivered = "{\"id\":\"e1\",\"status\":200,\"deliveredAt\":1000}";
    SettlementCopies tally = new SettlementCopies();
    tally.add("outcomes", SettlementCopies.dispatchers(ending(delivered, "s.ready-0@7", null)), "e1", true);
    tally.add("outcomes", SettlementCopies.dispatchers(ending(delivered, "s.ready-0@7", "sluice.sweeper-1")),
        "e1", true); // the same outcome copied by the sweeper, its own stamp
    assertEquals(1L, tally.figures(Map.of("e1", 1)).get("identicalCopies"),
        "ready-0@7's outcome written twice");
  }

  @Test
  void shouldCountTwoCallsOfOneReadyRecordAsTwoSettlementsNotACopy() {
    // Chaos seed 1701: dispatch-a's call answered, its outcome written, SIGKILL before the commit;
    // dispatch-b read ready-0@7 again and called it again: two calls, two outcomes.
    SettlementCopies tally = new SettlementCopies();
    tally.add("outcomes", SettlementCopies.dispatchers(ending(
        "{\"id\":\"e1\",\"status\":200,\"deliveredAt\":1000}", "s.ready-0@7", null)), "e1", true);
    tally.add("outcomes", SettlementCopies.dispatchers(ending(
        "{\"id\":\"e1\",\"status\":200,\"deliveredAt\":9600}", "s.ready-0@7", null)), "e1", true);
    Map<String, Object> f = tally.figures(Map.of("e1", 2));
    assertEquals(0L, f.get("identicalCopies"));
    assertEquals(0L, f.get("extraEndings"));
  }

  @Test
  void shouldTellTwoCallsDeadLettersOfOneReadyRecordByTheirTime() {
    String dead = "{\"id\":\"e1\"}"; // a dead letter's value is the event's, the same each time
    SettlementCopies tally = new SettlementCopies();
    tally.add("dlq", SettlementCopies.dispatchers(ending(dead, "s.ready-0@7", null, 1000)), "e1", true);
    tally.add("dlq", SettlementCopies.dispatchers(ending(dead, "s.ready-0@7", null, 9600)), "e1", true);
    tally.add("dlq", SettlementCopies.dispatchers(ending(dead, "s.ready-0@7", null, 9600)), "e1", true);
    assertEquals(1L, tally.figures(Map.of()).get("identicalCopies"), "the 9,600 ms one resent");
  }

  @Test
  void shouldCountAReadyRecordDeadLetteredAndDeliveredOnOneCallAsAnExtraEnding() {
    SettlementCopies tally = new SettlementCopies();
    tally.add("dlq", SettlementCopies.dispatchers(ending("{\"id\":\"e1\",\"reason\":\"x\"}",
        "s.ready-0@7", "sluice.relay-1")), "e1", true);
    tally.add("outcomes", SettlementCopies.dispatchers(ending(
        "{\"id\":\"e1\",\"status\":200,\"deliveredAt\":1000}", "s.ready-0@7", null)), "e1", true);
    assertEquals(List.of("1 events ended more often than delivered [e1]"),
        SettlementCopies.failures(tally.figures(Map.of("e1", 1))));
  }

  @Test
  void shouldPassARunWithEverySettlementWrittenOnce() {
    SettlementCopies tally = new SettlementCopies();
    tally.add("outcomes", "a", "e1", true);
    tally.add("delay.1s", "b", "e2", false);
    tally.add("dlq", "c", "e2", true);
    assertTrue(SettlementCopies.failures(tally.figures(Map.of("e1", 1))).isEmpty());
  }
}
