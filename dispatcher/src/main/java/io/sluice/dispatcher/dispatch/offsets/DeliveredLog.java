package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;

/**
 * The calls delivered (a 2xx) and the records settled on each partition of {@code sluice.ready}
 * beyond its committed offset, kept outside Kafka so that they outlive a failed commit.
 *
 * <p>The commit's metadata ({@link SettledOffsetsCodec}) tells a partition's next owner what was
 * settled beyond the commit, but only what was settled (its outcome acknowledged by Kafka) and
 * committed: while the broker is away neither happens, calls go on, and after the broker's restart
 * the group forgets its members and another instance takes the partition from the last commit
 * that went through (the chaos run: 154 of 211 duplicate calls came from one broker restart). A
 * SIGKILL loses what was delivered since the last commit the same way.
 *
 * <p>Settled records are kept too ({@link Delivered#settled}), whatever settled them: a deferral
 * through the ladder or a dead letter is no call, yet a new owner that reads its record again
 * writes a second copy, and the event is called twice (30 s later, after the ladder). Commits fail
 * for seconds at every broker restart and rebalance (coordinator moved, rebalance in progress), so
 * the commit's metadata is then behind what was settled, and only this says so.
 *
 * <p>Cost: one write per partition with new deliveries per
 * {@link io.sluice.dispatcher.dispatch.Dispatcher} round (about 10 a second), never one per event,
 * and nothing waits for it; one read per partition assigned.
 * Best effort both ways: a write or a read that fails (Redis away) only means calls are repeated
 * as they were without it.
 */
public interface DeliveredLog {
  /**
   * A call the provider accepted: the record's offset, the answer's status, the attempts made. Or,
   * with status {@link #SETTLED}, a record whose settlement (outcome, deferral or dead letter) Kafka
   * acknowledged: nothing is left to do for it.
   */
  public record Delivered(long offset, int status, int attempts) {
    /** The status of a settled record: no answer a provider gives (2xx only are delivered). */
    public static final int SETTLED = 0;

    /** The record at {@code offset} is settled: its settlement record was acknowledged. */
    public static Delivered settledAt(long offset) {
      return new Delivered(offset, SETTLED, 0);
    }

    /** True when the record is settled, not only delivered. */
    public boolean settled() {
      return status == SETTLED;
    }
  }

  /**
   * Adds {@code delivered} to the partition's log, and drops from it the offsets below
   * {@code keepFrom} (committed: never read again; -1 drops nothing). Does not wait: the stage
   * completes once written, or written off (it never fails).
   */
  public CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered);

  /**
   * The partition's delivered and settled offsets at or beyond {@code from} (empty if unknown); a
   * record both delivered and settled reads as settled.
   */
  CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from);

  /**
   * The partition's entries at offsets {@code from} to {@code to} (inclusive) as the log holds
   * them now, read again under what its last {@link #since} looked up (no new lookup): a new
   * owner waiting for its previous owner's settlement asks this until the log says settled
   * ({@link SettlementGrace}). Empty when unknown; this default knows nothing.
   */
  default CompletionStage<Map<Long, Delivered>> between(TopicPartition partition, long from, long to) {
    return CompletableFuture.completedFuture(Map.of());
  }

  /** Keeps nothing: a new owner calls again what was delivered since the last commit. */
  public DeliveredLog NONE = new DeliveredLog() {
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
