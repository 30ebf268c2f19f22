package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.testkit.FakeClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.Test;

/** When settled offsets are committed, and what a refused commit does. */
class OffsetCommitsTest {
  private static final TopicPartition P0 = new TopicPartition("ready", 0);

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final RefusingConsumer consumer = new RefusingConsumer();
  private final OwnedPartitions owned = new OwnedPartitions();
  private final OffsetCommits commits = new OffsetCommits(consumer, owned, clock, 100);

  @Test
  void shouldCommitWhatWasSettledAtMostOncePerRound() {
    readAndSettle(0);
    commits.commitIfDue();
    assertEquals(List.of(1L), sentOffsets(), "offset 0 settled: commit 1");
    readAndSettle(1);
    clock.advanceMillis(99);
    commits.commitIfDue();
    assertEquals(List.of(1L), sentOffsets(), "99 ms after the last commit: none");
    clock.advanceMillis(1);
    commits.commitIfDue();
    assertEquals(List.of(1L, 2L), sentOffsets());
    clock.advanceMillis(1_000);
    commits.commitIfDue();
    assertEquals(List.of(1L, 2L), sentOffsets(), "nothing settled since: no commit");
    assertEquals(2, owned.confirmedCommit(P0), "the commits that went through are confirmed");
  }

  @Test
  void shouldRetryAFailedRoundWithTheNextOneThoughNothingMoreSettles() {
    readAndSettle(0);
    consumer.refusals.add(new RebalanceInProgressException("rebalancing"));
    commits.commitIfDue();
    clock.advanceMillis(100);
    commits.commitIfDue();
    assertEquals(List.of(1L, 1L), sentOffsets(), "an idle partition would otherwise never commit");
    assertEquals(1, owned.confirmedCommit(P0));
  }

  @Test
  void shouldHalveTheMetadataWhenTheBrokerRefusesItAsTooLarge() {
    int budget = commits.metadataBudget();
    readAndSettle(0);
    consumer.refusals.add(new OffsetMetadataTooLarge("too large"));
    commits.commitIfDue();
    assertEquals(budget / 2, commits.metadataBudget());
    clock.advanceMillis(100);
    commits.commitIfDue();
    assertEquals(List.of(1L, 1L), sentOffsets(), "sent again, with less metadata");
  }

  @Test
  void shouldShrinkAndSendAgainAtOnceOnShutdown() {
    readAndSettle(0);
    consumer.refusals.add(new OffsetMetadataTooLarge("too large"));
    commits.commitNow();
    assertEquals(List.of(1L, 1L), sentOffsets());
    assertEquals(1, owned.confirmedCommit(P0));
  }

  @Test
  void shouldCommitRevokedPartitionsAtOnceAndNotThrowWhenRefused() {
    readAndSettle(0);
    consumer.refusals.add(new OffsetMetadataTooLarge("too large"));
    consumer.refusals.add(new RebalanceInProgressException("rebalancing"));
    commits.commitRevoked(Set.of(P0));
    assertEquals(List.of(1L, 1L), sentOffsets(), "shrunk and sent again, then given up quietly");
    assertTrue(consumer.refusals.isEmpty());
  }

  /** P0's record at {@code offset} is read and settled. */
  private void readAndSettle(long offset) {
    if (owned.get(P0) == null) {
      owned.assign(P0, new PartitionTakeover.Inherited(-1, SettledOffsets.NONE, Map.of()));
    }
    owned.get(P0).offsets().read(offset);
    owned.get(P0).offsets().settle(offset);
    commits.settled();
  }

  private List<Long> sentOffsets() {
    return consumer.sent.stream().map(m -> m.get(P0).offset()).toList();
  }

  /** Records every commit sent, and refuses the next ones with {@link #refusals}, in order. */
  private static final class RefusingConsumer extends MockConsumer<byte[], byte[]> {
    final Deque<RuntimeException> refusals = new ArrayDeque<>();
    final List<Map<TopicPartition, OffsetAndMetadata>> sent = new ArrayList<>();

    RefusingConsumer() {
      super("earliest");
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
      sent.add(offsets);
      RuntimeException refusal = refusals.poll();
      if (refusal != null) {
        throw refusal;
      }
    }

    @Override
    public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
        OffsetCommitCallback callback) {
      sent.add(offsets);
      callback.onComplete(offsets, refusals.poll());
    }
  }
}
