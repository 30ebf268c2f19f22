package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a new owner takes over, on a {@link MockConsumer} holding the group's commits and a
 * delivered log the test answers for; the real-broker hand-overs are in the takeover ITs.
 */
class PartitionTakeoverTest {
  private static final TopicPartition P0 = new TopicPartition("t.ready", 0);
  private static final TopicPartition P1 = new TopicPartition("t.ready", 1);
  private static final DeliveredLog.Delivered AT_105 = new DeliveredLog.Delivered(105, 200, 1);

  private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
  /** The monotonic clock; moves only where a test says so. */
  private final AtomicLong nanos = new AtomicLong();
  private volatile long nanosPerReading;
  /** The log's answer per partition; a partition not here never answers. */
  private final Map<TopicPartition, CompletionStage<Map<Long, DeliveredLog.Delivered>>> answers = new HashMap<>();
  private final Map<TopicPartition, Long> askedFrom = new HashMap<>();
  private final DeliveredLog log = new DeliveredLog() {
    @Override
    public CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered) {
      throw new AssertionError("a takeover only reads the log");
    }

    @Override
    public CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
      askedFrom.put(partition, from);
      return answers.getOrDefault(partition, new CompletableFuture<>());
    }
  };
  private final PartitionTakeover takeover = new PartitionTakeover(consumer, log,
      Duration.ofSeconds(1), Duration.ofSeconds(2), () -> nanos.addAndGet(nanosPerReading));

  private void committed(TopicPartition tp, long offset, SettledOffsets settledAhead) {
    consumer.assign(List.of(P0, P1));
    consumer.commitSync(Map.of(tp, new OffsetAndMetadata(offset,
        SettledOffsetsCodec.encode(OwnedPartitions.METADATA_FORMAT, offset, settledAhead,
            SettledOffsetsCodec.BROKER_DEFAULT_MAX_BYTES, OwnedPartitions.LEDGER_OVERFLOW))));
  }

  @Test
  @DisplayName("a partition never committed starts from nothing: offset -1, nothing settled or delivered")
  void neverCommitted() {
    answers.put(P0, CompletableFuture.completedFuture(Map.of()));
    PartitionTakeover.Inherited from = takeover.takeOver(List.of(P0)).get(P0);
    assertEquals(new PartitionTakeover.Inherited(-1, SettledOffsets.NONE, Map.of()), from);
    assertEquals(0L, askedFrom.get(P0), "the log is read from the start");
  }

  @Test
  @DisplayName("the commit's metadata says what the last owner settled beyond it; the log what it delivered")
  void inheritsCommitMetadataAndDeliveries() {
    committed(P0, 100, SettledOffsets.of(102, 104));
    answers.put(P0, CompletableFuture.completedFuture(Map.of(105L, AT_105)));
    consumer.updateEndOffsets(Map.of(P0, 120L));
    PartitionTakeover.Inherited from = takeover.takeOver(List.of(P0)).get(P0);
    assertEquals(100, from.committed());
    assertEquals(SettledOffsets.of(102, 104), from.settled());
    assertEquals(Map.of(105L, AT_105), from.delivered());
    assertEquals(100L, askedFrom.get(P0), "the log is read from the commit");
  }

  @Test
  @DisplayName("a partition lost without a commit and got back keeps what this process settled beyond the commit")
  void getsBackWhatItSettledBeforeTheLoss() {
    committed(P0, 100, SettledOffsets.NONE);
    answers.put(P0, CompletableFuture.completedFuture(Map.of()));
    takeover.lost(P0, SettledOffsets.of(90, 110));
    assertEquals(SettledOffsets.of(100, 110), takeover.takeOver(List.of(P0)).get(P0).settled(),
        "below the commit is behind the consumer anyway");
    assertEquals(SettledOffsets.NONE, takeover.takeOver(List.of(P0)).get(P0).settled(),
        "remembered for one return only");
  }

  @Test
  @DisplayName("a delivered log that fails, or has not answered by the deadline, gives nothing: those calls are made again")
  void logFailureOrSilenceGivesNothing() {
    committed(P0, 100, SettledOffsets.NONE);
    committed(P1, 200, SettledOffsets.NONE);
    answers.put(P0, CompletableFuture.failedFuture(new IllegalStateException("Redis away")));
    // P1: no answer. Each look at the clock finds 2.5 s gone: past the 2 s deadline at once.
    nanosPerReading = Duration.ofMillis(2500).toNanos();
    Map<TopicPartition, PartitionTakeover.Inherited> from = takeover.takeOver(List.of(P0, P1));
    assertEquals(Map.of(), from.get(P0).delivered());
    assertEquals(Map.of(), from.get(P1).delivered());
    assertEquals(200, from.get(P1).committed(), "the commit is still taken over");
  }

  @Test
  @DisplayName("commits that cannot be read mean nothing is skipped: every record is called again")
  void unreadableCommits() {
    committed(P0, 100, SettledOffsets.of(102, 104));
    answers.put(P0, CompletableFuture.completedFuture(Map.of()));
    consumer.close(); // committed() now throws, as a read that fails does
    PartitionTakeover.Inherited from = takeover.takeOver(List.of(P0)).get(P0);
    assertEquals(-1, from.committed());
    assertTrue(from.settled().intervals() == 0);
    assertEquals(0L, askedFrom.get(P0));
  }

  @Test
  @DisplayName("delivered-log entries at or beyond the partition's end offset are not of its records: ignored")
  void ignoresDeliveriesBeyondTheEnd() {
    committed(P0, 100, SettledOffsets.NONE);
    DeliveredLog.Delivered at119 = new DeliveredLog.Delivered(119, 200, 1);
    answers.put(P0, CompletableFuture.completedFuture(Map.of(105L, AT_105, 119L, at119,
        120L, new DeliveredLog.Delivered(120, 200, 1), 150L, new DeliveredLog.Delivered(150, 200, 1))));
    // The partition holds records up to 119 (truncated, created again, another cluster's log).
    consumer.updateEndOffsets(Map.of(P0, 120L));
    assertEquals(Map.of(105L, AT_105, 119L, at119), takeover.takeOver(List.of(P0)).get(P0).delivered());
  }

  @Test
  @DisplayName("an end offset that cannot be read means the delivered log is not trusted: those calls are made again")
  void unreadableEndTrustsNoDelivery() {
    committed(P0, 100, SettledOffsets.NONE);
    answers.put(P0, CompletableFuture.completedFuture(Map.of(105L, AT_105)));
    // No end offset known: MockConsumer throws, as a read that times out does.
    assertEquals(Map.of(), takeover.takeOver(List.of(P0)).get(P0).delivered());
  }
}
