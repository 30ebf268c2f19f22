package io.sluice.dispatcher.dispatch.offsets;

import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Writes {@link SettledOffsets} into a commit's {@code OffsetAndMetadata.metadata} and reads them
 * back. Pure and stateless.
 *
 * <h2>Format, version 1</h2>
 * <pre>
 *   "s1:" + base64url(zlib(varints))        varints, unsigned LEB128, relative to the committed offset c:
 *     from0 - c, to0 - from0, from1 - to0, to1 - from1, ...
 * </pre>
 * Each number is a gap, so long runs cost a byte or three whatever the offsets' magnitude, and
 * zlib folds the repetitive patterns fair queueing leaves (one held record every few). An empty
 * string means nothing is settled beyond the commit.
 *
 * <h2>Size</h2>
 * The broker refuses a commit whose metadata is longer than {@code offset.metadata.max.bytes}
 * (4096 by default), and a refused commit would stop every commit of the partition. So
 * {@link #encode} keeps the longest <em>prefix</em> of the intervals that fits: what is left out
 * is replayed by the next owner (duplicates, never losses). At least once is never at stake here:
 * a settled offset that is forgotten is only called again.
 *
 * <h2>Reading</h2>
 * {@link #decode} never throws: metadata it does not recognise (another tool's, a later version,
 * corrupt) reads as {@link SettledOffsets#NONE}, which replays everything past the commit, as
 * before this existed. Inflation is capped, so a hostile metadata string cannot exhaust memory.
 */
public final class SettledOffsetsCodec {
  /** The broker's default {@code offset.metadata.max.bytes}. */
  public static final int BROKER_DEFAULT_MAX_BYTES = 4096;
  static final String PREFIX = "s1:";
  /** Far more than 4096 characters of base64 can inflate to with real data. */
  private static final int MAX_INFLATED_BYTES = 1 << 20;

  private SettledOffsetsCodec() {}

  /**
   * The metadata for a commit at {@code committed}: the settled intervals at or above it, as many
   * as fit in {@code maxChars} characters (the metadata is ASCII: characters are bytes).
   */
  public static String encode(long committed, SettledOffsets settled, int maxChars) {
    SettledOffsets ahead = settled.from(committed);
    if (ahead.intervals() == 0 || maxChars <= PREFIX.length()) {
      return "";
    }
    // Each interval costs two varints, and zlib gains at most a few times on the patterns fair
    // queueing leaves: more than 8 per character cannot fit, and would only cost CPU to try.
    int cap = (int) Math.min(ahead.intervals(), 8L * maxChars);
    String all = encodeAll(committed, ahead.first(cap));
    if (all.length() <= maxChars) {
      return all;
    }
    // The longest prefix that fits. Size grows with the prefix (not strictly, compression), so a
    // binary search finds a prefix that fits, close to the longest; each probe is one deflate.
    int lo = 0; // fits (the empty string)
    int hi = cap; // does not fit
    String best = "";
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      String s = encodeAll(committed, ahead.first(mid));
      if (s.length() <= maxChars) {
        lo = mid;
        best = s;
      } else {
        hi = mid;
      }
    }
    return best;
  }

  /** The settled intervals a commit at {@code committed} carried; NONE when unreadable. */
  public static SettledOffsets decode(long committed, String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX) || committed < 0) {
      return SettledOffsets.NONE;
    }
    try {
      byte[] varints = inflate(Base64.getUrlDecoder().decode(metadata.substring(PREFIX.length())));
      SettledOffsets.Builder b = new SettledOffsets.Builder();
      int[] at = {0};
      long cursor = committed;
      while (at[0] < varints.length) {
        long from = Math.addExact(cursor, readVarint(varints, at));
        long to = Math.addExact(from, readVarint(varints, at));
        if (to <= from || (from <= cursor && cursor != committed)) {
          return SettledOffsets.NONE; // not what encode writes: trust none of it
        }
        b.add(from, to);
        cursor = to;
      }
      return b.build();
    } catch (IllegalArgumentException | ArithmeticException | DataFormatException e) {
      return SettledOffsets.NONE;
    }
  }

  private static String encodeAll(long committed, SettledOffsets ahead) {
    ByteArrayOutputStream varints = new ByteArrayOutputStream();
    long cursor = committed;
    for (int i = 0; i < ahead.intervals(); i++) {
      writeVarint(varints, ahead.from(i) - cursor);
      writeVarint(varints, ahead.to(i) - ahead.from(i));
      cursor = ahead.to(i);
    }
    return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(deflate(varints.toByteArray()));
  }

  private static byte[] deflate(byte[] raw) {
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    try {
      deflater.setInput(raw);
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 16);
      byte[] buf = new byte[4096];
      while (!deflater.finished()) {
        out.write(buf, 0, deflater.deflate(buf));
      }
      return out.toByteArray();
    } finally {
      deflater.end();
    }
  }

  private static byte[] inflate(byte[] compressed) throws DataFormatException {
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(compressed);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      while (!inflater.finished()) {
        int n = inflater.inflate(buf);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DataFormatException("truncated");
        }
        out.write(buf, 0, n);
        if (out.size() > MAX_INFLATED_BYTES) {
          throw new DataFormatException("inflates beyond " + MAX_INFLATED_BYTES + " bytes");
        }
      }
      return out.toByteArray();
    } finally {
      inflater.end();
    }
  }

  private static void writeVarint(ByteArrayOutputStream out, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("negative gap " + value);
    }
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  private static long readVarint(byte[] in, int[] at) {
    long value = 0;
    for (int shift = 0; shift < 63; shift += 7) {
      if (at[0] >= in.length) {
        throw new IllegalArgumentException("varint runs past the end");
      }
      byte b = in[at[0]++];
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("varint too long");
  }
}
