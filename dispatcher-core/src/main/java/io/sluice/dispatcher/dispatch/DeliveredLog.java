package io.sluice.dispatcher.dispatch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;

/**
 * The calls delivered (a 2xx) on each partition of {@code sluice.ready} beyond its committed
 * offset, kept outside Kafka so that they outlive a failed commit.
 *
 * <p>The commit's metadata ({@link SettledOffsetsCodec}) tells a partition's next owner what was
 * settled beyond the commit, but only what was settled (its outcome acknowledged by Kafka) and
 * committed: while the broker is away neither happens, calls go on, and after the broker's restart
 * the group forgets its members and another instance takes the partition from the last commit
 * that went through (the chaos run: 154 of 211 duplicate calls came from one broker restart). A
 * SIGKILL loses what was delivered since the last commit the same way.
 *
 * <p>Cost: one write per partition with new deliveries per {@link Dispatcher} round (about 10 a
 * second), never one per event, and nothing waits for it; one read per partition assigned.
 * Best effort both ways: a write or a read that fails (Redis away) only means calls are repeated
 * as they were without it.
 */
public interface DeliveredLog {
  /** A call the provider accepted: the record's offset, the answer's status, the attempts made. */
  record Delivered(long offset, int status, int attempts) {}

  /**
   * Adds {@code delivered} to the partition's log, and drops from it the offsets below
   * {@code keepFrom} (committed: never read again; -1 drops nothing). Does not wait: the stage
   * completes once written, or written off (it never fails).
   */
  CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered);

  /** The partition's delivered offsets at or beyond {@code from} (empty if unknown). */
  CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from);

  /** Keeps nothing: a new owner calls again what was delivered since the last commit. */
  DeliveredLog NONE = new DeliveredLog() {
    @Override
    public CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
      return CompletableFuture.completedFuture(Map.of());
    }
  };
}
