package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SettledOffsetsCodecTest {
  private static final SettledOffsetsCodec.Format ZLIB = SettledOffsetsCodec.Format.ZLIB_V1;
  private static final Overflow TRUNCATE = Overflow.truncate();

  @Test
  @DisplayName("round trip: the intervals come back exactly, relative to the committed offset")
  void roundTrip() {
    SettledOffsets s = SettledOffsets.of(1_000_001, 1_000_050, 1_000_051, 1_200_000);
    String metadata = SettledOffsetsCodec.encode(ZLIB, 1_000_000, s, 4096, TRUNCATE);
    assertTrue(metadata.startsWith("s1:"), metadata);
    assertTrue(metadata.length() < 40, "two intervals cost a few bytes: " + metadata);
    assertEquals(s, SettledOffsetsCodec.decodeOrNone(1_000_000, metadata));
  }

  @Test
  @DisplayName("nothing settled beyond the commit: empty metadata, read back as none")
  void emptyIsEmpty() {
    assertEquals("", SettledOffsetsCodec.encode(ZLIB, 5, SettledOffsets.NONE, 4096, TRUNCATE));
    assertEquals("", SettledOffsetsCodec.encode(ZLIB, 50, SettledOffsets.of(10, 20), 4096, TRUNCATE),
        "intervals below the commit are dropped");
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(5, ""));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(5, null));
  }

  @Test
  @DisplayName("an interval straddling the commit is cut above it: the commit is the first offset not done")
  void cutAtCommit() {
    assertEquals(SettledOffsets.of(13, 20),
        SettledOffsetsCodec.decodeOrNone(12, SettledOffsetsCodec.encode(ZLIB, 12, SettledOffsets.of(10, 20), 100, TRUNCATE)));
  }

  @Test
  @DisplayName("too many intervals for the broker's limit: the longest prefix that fits, the rest replays")
  void truncatesToAPrefixThatFits() {
    // Random holes: the worst case for compression. 20,000 intervals cannot fit in 4096 bytes.
    Random random = new Random(1);
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    long at = 1;
    for (int i = 0; i < 20_000; i++) {
      long from = at + 1 + random.nextInt(5);
      long to = from + 1 + random.nextInt(50);
      b.add(from, to);
      at = to;
    }
    SettledOffsets all = b.build();
    String metadata = SettledOffsetsCodec.encode(ZLIB, 0, all, 4096, TRUNCATE);
    assertTrue(metadata.length() <= 4096, "fits: " + metadata.length());
    SettledOffsets kept = SettledOffsetsCodec.decodeOrNone(0, metadata);
    assertTrue(kept.intervals() > 500, "keeps a useful prefix: " + kept.intervals());
    assertTrue(kept.intervals() < all.intervals());
    assertEquals(all.first(kept.intervals()), kept, "a prefix of what was settled, nothing else");
    // Nearly the longest: one more interval would not fit (give or take compression's wobble).
    String longer = SettledOffsetsCodec.encode(ZLIB, 0, all.first(kept.intervals() + 50), 1 << 20, TRUNCATE);
    assertTrue(longer.length() > 4096, "50 more intervals would not fit: " + longer.length());
  }

  @Test
  @DisplayName("a regular pattern (one record held every few) compresses to a few hundred bytes")
  void regularPatternCompresses() {
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    for (long o = 0; o < 100_000; o += 10) {
      b.add(o + 1, o + 10); // every tenth record still held
    }
    SettledOffsets s = b.build();
    String metadata = SettledOffsetsCodec.encode(ZLIB, 0, s, 4096, TRUNCATE);
    assertTrue(metadata.length() < 1000, "10,000 intervals: " + metadata.length() + " chars");
    assertEquals(s, SettledOffsetsCodec.decodeOrNone(0, metadata));
  }

  @Test
  @DisplayName("unrecognised or corrupt metadata reads as nothing settled (replay, never skip)")
  void corruptReadsAsNone() {
    String good = SettledOffsetsCodec.encode(ZLIB, 0, SettledOffsets.of(3, 9), 4096, TRUNCATE);
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(0, "hello"));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(0, "s1:!!!"));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(0, "s2:" + good.substring(3)));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(0,
        good.substring(0, good.length() - 3)));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decodeOrNone(-1, good));
  }

  @Test
  @DisplayName("intervals answer membership at their bounds")
  void membership() {
    SettledOffsets s = SettledOffsets.of(5, 7, 9, 10);
    assertFalse(s.contains(4));
    assertTrue(s.contains(5));
    assertTrue(s.contains(6));
    assertFalse(s.contains(7));
    assertFalse(s.contains(8));
    assertTrue(s.contains(9));
    assertFalse(s.contains(10));
    assertEquals(3, s.count());
    assertThrows(IllegalArgumentException.class, () -> SettledOffsets.of(5, 7, 7, 9),
        "touching intervals are one interval");
  }
}
