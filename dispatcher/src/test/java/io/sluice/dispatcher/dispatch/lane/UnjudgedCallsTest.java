package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which partitions still have calls out that a revocation must wait for. */
class UnjudgedCallsTest {
  private static final TopicPartition P0 = new TopicPartition("ready", 0);
  private static final TopicPartition P1 = new TopicPartition("ready", 1);
  private final UnjudgedCalls calls = new UnjudgedCalls();

  @Test
  @DisplayName("a partition has calls out until every call started was judged")
  void shouldCountEachCallOfAPartitionUntilJudged() {
    calls.started(P0);
    calls.started(P0);
    calls.judged(P0);

    assertTrue(calls.anyOf(List.of(P0)), "one of two still out");
    calls.judged(P0);
    assertFalse(calls.anyOf(List.of(P0)));
  }

  @Test
  @DisplayName("only the partitions asked about count, and a judgement of none out is ignored")
  void shouldAnswerForThePartitionsAskedAbout() {
    calls.started(P1);
    calls.judged(P0);

    assertFalse(calls.anyOf(List.of(P0)));
    assertTrue(calls.anyOf(List.of(P0, P1)));
  }
}
