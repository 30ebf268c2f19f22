package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The books of the partitions a dispatcher owns: assignments, settlements, commits. */
class OwnedPartitionsTest {
  private static final TopicPartition P0 = new TopicPartition("ready", 0);
  private static final TopicPartition P1 = new TopicPartition("ready", 1);
  private static final PartitionTakeover.Inherited FRESH =
      new PartitionTakeover.Inherited(-1, SettledOffsets.NONE, Map.of());

  private final OwnedPartitions owned = new OwnedPartitions();

  @Test
  void shouldCountASettlementOnlyForTheAssignmentThatReadItsRecord() {
    owned.assign(P0, FRESH);
    DispatchEntry old = read(P0, 10);
    owned.forget(List.of(P0), (tp, settled) -> { });
    owned.assign(P0, FRESH);
    DispatchEntry current = read(P0, 10);

    assertFalse(owned.isCurrent(old), "read before the partition was revoked and assigned again");
    assertFalse(owned.settle(old), "a late settlement of the old assignment moves nothing");
    assertEquals(1, owned.get(P0).offsets().waiting());
    assertTrue(owned.isCurrent(current));
    assertTrue(owned.settle(current));
    assertEquals(0, owned.get(P0).offsets().waiting());
  }

  @Test
  void shouldIgnoreASettlementOfAPartitionNoLongerOwned() {
    owned.assign(P0, FRESH);
    DispatchEntry entry = read(P0, 3);
    owned.forget(List.of(P0), (tp, settled) -> { });
    assertFalse(owned.isCurrent(entry));
    assertFalse(owned.settle(entry));
    assertNull(owned.get(P0));
  }

  @Test
  void shouldCommitUpToTheFirstUnsettledRecordWithWhatIsSettledBeyondIt() {
    owned.assign(P0, FRESH);
    owned.assign(P1, FRESH);
    DispatchEntry first = read(P0, 5);
    DispatchEntry second = read(P0, 6);
    read(P0, 7);
    owned.settle(second);

    Map<TopicPartition, OffsetAndMetadata> offsets = owned.committable(Set.of(P0, P1), 4096);
    assertEquals(Set.of(P0), offsets.keySet(), "P1 has read nothing: nothing to commit");
    assertEquals(5, offsets.get(P0).offset(), "offset 5 is still in flight");
    assertEquals(SettledOffsets.of(6, 7),
        SettledOffsetsCodec.decode(5, offsets.get(P0).metadata()),
        "the metadata says 6 is settled, so a next owner does not call it again");

    owned.settle(first);
    assertEquals(7, owned.committable(Set.of(P0), 4096).get(P0).offset());
  }

  @Test
  void shouldConfirmOnlyTheLatestCommitOfAPartitionStillOwned() {
    owned.assign(P0, new PartitionTakeover.Inherited(40, SettledOffsets.NONE, Map.of()));
    assertEquals(40, owned.confirmedCommit(P0), "starts from the commit it inherited");
    owned.confirmed(Map.of(P0, new OffsetAndMetadata(50), P1, new OffsetAndMetadata(9)));
    owned.confirmed(Map.of(P0, new OffsetAndMetadata(45)));
    assertEquals(50, owned.confirmedCommit(P0), "a late callback of an older commit does not move it back");
    assertEquals(-1, owned.confirmedCommit(P1), "P1 is not ours");
  }

  @Test
  void shouldHandOverWhatWasSettledOfEachForgottenPartition() {
    owned.assign(P0, FRESH);
    owned.assign(P1, FRESH);
    read(P0, 1);
    owned.settle(read(P0, 2));
    Map<TopicPartition, SettledOffsets> handedOver = new HashMap<>();
    owned.forget(List.of(P0), handedOver::put);
    assertEquals(Set.of(P0), handedOver.keySet());
    assertTrue(handedOver.get(P0).contains(2));
    assertEquals(Set.of(P1), owned.partitions());
    assertEquals(1, owned.count());
  }

  @Test
  void shouldKeepTheDeliveriesInheritedWithTheAssignment() {
    DeliveredLog.Delivered delivered = new DeliveredLog.Delivered(12, 200, 1);
    owned.assign(P0, new PartitionTakeover.Inherited(10, SettledOffsets.NONE, Map.of(12L, delivered)));
    assertEquals(delivered, owned.get(P0).deliveredBefore().remove(12L),
        "read once: the record's outcome is written instead of calling again");
    assertTrue(owned.get(P0).deliveredBefore().isEmpty());
  }

  /** The current assignment of {@code tp} reads the record at {@code offset}. */
  private DispatchEntry read(TopicPartition tp, long offset) {
    OwnedPartitions.Assignment a = owned.get(tp);
    a.offsets().read(offset);
    return new DispatchEntry(tp, offset, a.generation(), null, null, null, null, null, 0, null);
  }
}
