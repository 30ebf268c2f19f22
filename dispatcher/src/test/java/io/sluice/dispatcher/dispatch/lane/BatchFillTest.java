package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.sluice.config.BatchRule;
import io.sluice.dispatcher.dispatch.lane.BatchFill.Head;
import io.sluice.dispatcher.dispatch.lane.BatchFill.Step;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * What goes into the next batch: a table, one row per case, each row a queue of heads in the fair
 * queue's order and the steps the fill answers, head by head, until it stops.
 */
class BatchFillTest {
  private static final BatchRule THREE = new BatchRule(3, 1024, Duration.ZERO);
  private static final long ANY_COST = Long.MAX_VALUE;

  private static Head plain() {
    return new Head(1, 10, "/", null, false);
  }

  private static Head bytes(int bytes) {
    return new Head(1, bytes, "/", null, false);
  }

  private static Head cost(long cost) {
    return new Head(cost, 10, "/", null, false);
  }

  private static Head to(String destination) {
    return new Head(1, 10, destination, null, false);
  }

  private static Head key(String key) {
    return new Head(1, 10, "/", key, false);
  }

  private static Head expired() {
    return new Head(1, 10, "/", null, true);
  }

  /** One case: why, the rule, what the slot reserved, the heads, the steps (the last one a STOP, or the queue's end). */
  private record Row(String why, BatchRule rule, long slotCost, List<Head> heads, List<Step> steps,
      int events, long cost) {}

  private static final Step T = Step.TAKE;
  private static final Step E = Step.EXPIRE;
  private static final Step S = Step.STOP;

  private static final List<Row> TABLE = List.of(
      new Row("a queue shorter than maxEvents goes whole", THREE, ANY_COST,
          List.of(plain(), plain()), List.of(T, T), 2, 2),
      new Row("maxEvents stops the fill; the fourth waits for the next slot", THREE, ANY_COST,
          List.of(plain(), plain(), plain(), plain()), List.of(T, T, T, S), 3, 3),
      new Row("one event a call with maxEvents 1", new BatchRule(1, 1024, Duration.ZERO), ANY_COST,
          List.of(plain(), plain()), List.of(T, S), 1, 1),
      new Row("a head past its deadline leaves, expired, and the fill goes on without counting it",
          THREE, ANY_COST, List.of(expired(), plain(), expired(), plain(), plain(), plain()),
          List.of(E, T, E, T, T, S), 3, 3),
      new Row("another path (or other attributes) stops the fill: one URL, one set of headers a call",
          THREE, ANY_COST, List.of(to("/a"), to("/b"), to("/a")), List.of(T, S), 1, 1),
      new Row("the fill stops at the first head that does not fit, never skipping to a later one",
          THREE, 5, List.of(cost(1), cost(5), cost(1)), List.of(T, S), 1, 1),
      new Row("the summed cost stays within what the slot reserved", THREE, 4,
          List.of(cost(2), cost(2), cost(1)), List.of(T, T, S), 2, 4),
      new Row("the body stays within maxBytes: [a,b] is 2 + 500 + 1 + 500 bytes, a third of 30 would pass 1024",
          THREE, ANY_COST, List.of(bytes(500), bytes(500), bytes(30)), List.of(T, T, S), 2, 2),
      new Row("a payload larger than maxBytes goes, alone", THREE, ANY_COST,
          List.of(bytes(4000), plain()), List.of(T, S), 1, 1),
      new Row("at most one event per ordering key: the key's second waits for the first's outcome",
          THREE, ANY_COST, List.of(key("t1:k"), key("t1:j"), key("t1:k")), List.of(T, T, S), 2, 2),
      new Row("events without a key never collide", THREE, ANY_COST,
          List.of(key(null), key(null), key(null)), List.of(T, T, T), 3, 3));

  @TestFactory
  Stream<DynamicTest> fillsEachBatchAsTheTableSays() {
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < TABLE.size(); i++) {
      Row row = TABLE.get(i);
      tests.add(dynamicTest("#" + (i + 1) + " " + row.why(), () -> {
        BatchFill fill = new BatchFill(row.rule(), row.slotCost());
        List<Step> steps = new ArrayList<>();
        for (Head head : row.heads()) {
          Step step = fill.offer(head);
          steps.add(step);
          if (step == Step.STOP) {
            break;
          }
        }
        assertEquals(row.steps(), steps);
        assertEquals(row.events(), fill.events(), "events in the call");
        assertEquals(row.cost(), fill.cost(), "the call's cost in cost windows");
      }));
    }
    return tests.stream();
  }

  private record WaitRow(String why, BatchRule rule, int queued, long nowNanos, long lastCallNanos,
      boolean calls) {}

  private static final BatchRule WAIT_200MS = new BatchRule(10, 1024, Duration.ofMillis(200));
  private static final long MS = 1_000_000;

  private static final List<WaitRow> WAITS = List.of(
      new WaitRow("no maxWait: a due slot sends whatever is queued", THREE, 1, 0, 0, true),
      new WaitRow("a full batch never waits", WAIT_200MS, 10, 50 * MS, 0, true),
      new WaitRow("a partial batch waits while the previous call is younger than maxWait",
          WAIT_200MS, 3, 199 * MS, 0, false),
      new WaitRow("and goes once maxWait has passed since it", WAIT_200MS, 3, 200 * MS, 0, true),
      new WaitRow("the lane's first call does not wait", WAIT_200MS, 1, 0, Long.MIN_VALUE, true));

  @TestFactory
  Stream<DynamicTest> waitsForAFullerBatchAtMostMaxWait() {
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < WAITS.size(); i++) {
      WaitRow row = WAITS.get(i);
      tests.add(dynamicTest("#" + (i + 1) + " " + row.why(), () -> assertEquals(row.calls(),
          BatchFill.mayCall(row.rule(), row.queued(), row.nowNanos(), row.lastCallNanos()))));
    }
    return tests.stream();
  }
}
