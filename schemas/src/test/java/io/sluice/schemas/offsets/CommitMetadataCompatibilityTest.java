package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Commit metadata written before the relay and the dispatcher shared one ledger and one codec is
 * still read, and each role still writes byte for byte what it wrote, so an instance not yet
 * upgraded reads the commits of one that is. The literals were produced by the code of main
 * fd2faa8: the relay's {@code PartitionLedger} and the dispatcher's {@code SettledOffsetsCodec}.
 */
class CommitMetadataCompatibilityTest {
  private static final long BASE = 1L << 60;

  @Test
  @DisplayName("the relay's runs format from before reads back as the runs it listed, whichever role reads it")
  void shouldReadTheRelaysMetadataFromBefore() {
    // Read 0, 1, 2, 3, 5, 6, 9; released 1, 2, 6, 9: runs 1-2 and 6-9 above the commit 0.
    assertEquals(SettledOffsets.of(1, 3, 6, 10), SettledOffsetsCodec.decode(0, "sluice-relay-v1:1.1,4.3"));
    assertEquals(SettledOffsets.of(1, 3, 6, 10), SettledOffsetsCodec.decodeOrNone(0, "sluice-relay-v1:1.1,4.3"));
    long second = BASE + 1_000_000_000L;
    long fourth = BASE + 3_000_000_000L;
    long seventh = BASE + 6_000_000_000L;
    assertEquals(SettledOffsets.of(second, second + 1, fourth, fourth + 1, seventh, seventh + 1),
        SettledOffsetsCodec.decode(BASE, "sluice-relay-v1:gjdgxs.0,x2qxvk.0,1dm4etc.0"));
  }

  @Test
  @DisplayName("the dispatcher's zlib format from before reads back as the intervals it listed")
  void shouldReadTheDispatchersMetadataFromBefore() {
    assertEquals(SettledOffsets.of(1_000_001, 1_000_050, 1_000_051, 1_200_000),
        SettledOffsetsCodec.decode(1_000_000, "s1:eNpjNGTsncUDAAPsAWc"));
    assertEquals(everyTenthHeld(), SettledOffsetsCodec.decodeOrNone(0, "s1:eNpj5GQcFhAAh9sD6Q"));
  }

  @Test
  @DisplayName("the relay's ledger writes the same runs it wrote before")
  void shouldWriteWhatTheRelayWrote() {
    OffsetLedger ledger = new OffsetLedger(0, SettledOffsets.NONE, Overflow.refuseBeyond(100));
    for (long o : new long[] {0, 1, 2, 3, 5, 6, 9}) {
      ledger.read(o);
    }
    for (long o : new long[] {1, 2, 6, 9}) {
      ledger.settle(o);
    }
    assertEquals(0, ledger.committable().getAsLong());
    assertEquals("sluice-relay-v1:1.1,4.3", ledger.metadata(SettledOffsetsCodec.Format.RUNS_V1, 4096));

    OffsetLedger far = new OffsetLedger(BASE, SettledOffsets.NONE, Overflow.refuseBeyond(100));
    for (long i = 0; i < 7; i++) {
      far.read(BASE + i * 1_000_000_000L);
    }
    for (long i : new long[] {1, 3, 6}) {
      far.settle(BASE + i * 1_000_000_000L);
    }
    assertEquals("sluice-relay-v1:gjdgxs.0,x2qxvk.0,1dm4etc.0", far.metadata(SettledOffsetsCodec.Format.RUNS_V1, 4096));
  }

  @Test
  @DisplayName("the dispatcher's codec writes the same zlib metadata it wrote before")
  void shouldWriteWhatTheDispatcherWrote() {
    assertEquals("s1:eNpjNGTsncUDAAPsAWc", SettledOffsetsCodec.encode(SettledOffsetsCodec.Format.ZLIB_V1,
        1_000_000, SettledOffsets.of(1_000_001, 1_000_050, 1_000_051, 1_200_000), 4096, Overflow.truncate()));
    assertEquals("s1:eNpj5GQcFhAAh9sD6Q", SettledOffsetsCodec.encode(SettledOffsetsCodec.Format.ZLIB_V1,
        0, everyTenthHeld(), 4096, Overflow.truncate()));
  }

  /** [1,10), [11,20), ... [991,1000): every tenth record held, the rest settled. */
  private static SettledOffsets everyTenthHeld() {
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    for (long o = 0; o < 1000; o += 10) {
      b.add(o + 1, o + 10);
    }
    return b.build();
  }
}
