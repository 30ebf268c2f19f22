package io.sluice.schemas.offsets;

import java.io.ByteArrayOutputStream;
import java.util.Base64;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Writes {@link SettledOffsets} into a commit's {@code OffsetAndMetadata.metadata} and reads them
 * back, in every format Sluice has written. Pure and stateless.
 *
 * <p>Each format starts with its own prefix ({@link Format}), so a reader never misreads another
 * format's metadata, and metadata committed by an older release is still read after an upgrade. A
 * writer names the format it writes: each role keeps writing the format it wrote before the two
 * were one codec, so an instance not yet upgraded in a rolling upgrade still reads the commits of
 * one that is. A new format is a new constant with a new prefix; the old ones stay readable.
 *
 * <h2>{@link Format#RUNS_V1}, the relay's</h2>
 * <pre>
 *   "sluice-relay-v1:" + gap.length(,gap.length)*     base-36 longs; runs inclusive, relative to the commit c:
 *     gap = a run's first offset - the previous run's last (or c); length = last - first
 * </pre>
 * At most two 13-character base-36 longs and two separators a run: 100 runs fit 4096 bytes.
 *
 * <h2>{@link Format#ZLIB_V1}, the dispatcher's</h2>
 * <pre>
 *   "s1:" + base64url(zlib(varints))        varints, unsigned LEB128, relative to the committed offset c:
 *     from0 - c, to0 - from0, from1 - to0, to1 - from1, ...
 * </pre>
 * Each number is a gap, so long runs cost a byte or three whatever the offsets' magnitude, and
 * zlib folds the repetitive patterns fair queueing leaves (one held record every few).
 *
 * <p>An empty string, in every format, means nothing is done beyond the commit.
 *
 * <h2>Size</h2>
 * The broker refuses a commit whose metadata is longer than {@code offset.metadata.max.bytes}
 * (4096 by default), and a refused commit would stop every commit of the partition. With
 * {@link Overflow#truncate()} {@link #encode} keeps the longest <em>prefix</em> of the intervals
 * that fits: what is left out is done again by the next owner (duplicates, never losses). With
 * {@link Overflow#refuseBeyond} it throws instead: the ledger bounds the runs so that it never does.
 *
 * <h2>Reading</h2>
 * {@link #decodeOrNone} never throws: metadata it does not recognise (another tool's, a later
 * version, corrupt) reads as {@link SettledOffsets#NONE}, which does again everything past the
 * commit. {@link #decode} reads foreign metadata as NONE too, but throws on metadata with one of
 * its prefixes that it cannot read. Inflation is capped, so a hostile metadata string cannot
 * exhaust memory.
 */
public final class SettledOffsetsCodec {
  /** The broker's default {@code offset.metadata.max.bytes}. */
  public static final int BROKER_DEFAULT_MAX_BYTES = 4096;
  /** Far more than 4096 characters of base64 can inflate to with real data. */
  private static final int MAX_INFLATED_BYTES = 1 << 20;

  /** The formats written so far, each with the prefix that marks it. */
  public enum Format {
    /** Inclusive runs as base-36 gaps: the relay's, since its first release. */
    RUNS_V1("sluice-relay-v1:"),
    /** Half-open intervals as zlib-compressed varint gaps: the dispatcher's. */
    ZLIB_V1("s1:");

    private final String prefix;

    Format(String prefix) {
      this.prefix = prefix;
    }

    public String prefix() {
      return prefix;
    }

    /** The format {@code metadata} is written in, or null when it is none of them. */
    static Format of(String metadata) {
      for (Format f : values()) {
        if (metadata.startsWith(f.prefix)) {
          return f;
        }
      }
      return null;
    }
  }

  private SettledOffsetsCodec() {}

  /**
   * The metadata for a commit at {@code committed}, in {@code format}: the done intervals above it,
   * within {@code maxChars} characters (the metadata is ASCII: characters are bytes). With
   * {@link Overflow#truncate()} as many intervals as fit.
   *
   * @throws IllegalStateException with {@link Overflow#refuseBeyond} when they do not all fit
   */
  public static String encode(Format format, long committed, SettledOffsets settled, int maxChars,
      Overflow overflow) {
    SettledOffsets ahead = settled.from(committed + 1);
    if (ahead.intervals() == 0) {
      return "";
    }
    if (!overflow.truncates()) {
      String all = encodeAll(format, committed, ahead);
      if (all.length() > maxChars) {
        throw new IllegalStateException(ahead.intervals() + " runs above offset " + committed
            + " need " + all.length() + " characters of commit metadata, more than " + maxChars);
      }
      return all;
    }
    if (maxChars <= format.prefix.length()) {
      return "";
    }
    // Each interval costs two numbers of at least a character (zlib gains at most a few times on
    // the patterns fair queueing leaves): more than 8 per character cannot fit, and would only
    // cost CPU to try.
    int cap = (int) Math.min(ahead.intervals(), 8L * maxChars);
    String all = encodeAll(format, committed, ahead.first(cap));
    if (all.length() <= maxChars) {
      return all;
    }
    // The longest prefix that fits. Size grows with the prefix (not strictly, compression), so a
    // binary search finds a prefix that fits, close to the longest; each probe is one encoding.
    int lo = 0; // fits (the empty string)
    int hi = cap; // does not fit
    String best = "";
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      String s = encodeAll(format, committed, ahead.first(mid));
      if (s.length() <= maxChars) {
        lo = mid;
        best = s;
      } else {
        hi = mid;
      }
    }
    return best;
  }

  /**
   * The done intervals a commit at {@code committed} carried, in whichever format; NONE for null,
   * empty or foreign metadata.
   *
   * @throws IllegalArgumentException if the metadata has one of the formats' prefixes but cannot be read
   */
  public static SettledOffsets decode(long committed, String metadata) {
    Format format = metadata == null ? null : Format.of(metadata);
    if (format == null || metadata.length() == format.prefix.length()) {
      return SettledOffsets.NONE;
    }
    if (committed < 0) {
      throw new IllegalArgumentException("commit metadata '" + metadata + "' without a committed offset");
    }
    String body = metadata.substring(format.prefix.length());
    try {
      return format == Format.RUNS_V1 ? decodeRuns(committed, body) : decodeZlib(committed, body);
    } catch (RuntimeException | DataFormatException e) {
      throw new IllegalArgumentException("unreadable commit metadata '" + metadata + "': " + e.getMessage(), e);
    }
  }

  /** As {@link #decode}, but NONE (do everything past the commit again) when unreadable. */
  public static SettledOffsets decodeOrNone(long committed, String metadata) {
    try {
      return decode(committed, metadata);
    } catch (IllegalArgumentException e) {
      return SettledOffsets.NONE;
    }
  }

  private static SettledOffsets decodeRuns(long committed, String body) {
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    long previous = committed;
    for (String run : body.split(",")) {
      int dot = run.indexOf('.');
      long start = Math.addExact(previous, Long.parseLong(run.substring(0, dot), 36));
      long end = Math.addExact(start, Long.parseLong(run.substring(dot + 1), 36));
      if (start <= previous || end < start) {
        throw new IllegalArgumentException("runs out of order");
      }
      b.add(start, end + 1);
      previous = end;
    }
    return b.build();
  }

  private static SettledOffsets decodeZlib(long committed, String body) throws DataFormatException {
    byte[] varints = inflate(Base64.getUrlDecoder().decode(body));
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    int[] at = {0};
    long cursor = committed;
    while (at[0] < varints.length) {
      long from = Math.addExact(cursor, readVarint(varints, at));
      long to = Math.addExact(from, readVarint(varints, at));
      if (to <= from || (from <= cursor && cursor != committed)) {
        throw new IllegalArgumentException("intervals out of order");
      }
      b.add(from, to);
      cursor = to;
    }
    return b.build();
  }

  private static String encodeAll(Format format, long committed, SettledOffsets ahead) {
    return format == Format.RUNS_V1 ? encodeRuns(committed, ahead) : encodeZlib(committed, ahead);
  }

  private static String encodeRuns(long committed, SettledOffsets ahead) {
    StringBuilder out = new StringBuilder(Format.RUNS_V1.prefix);
    long previous = committed;
    for (int i = 0; i < ahead.intervals(); i++) {
      long first = ahead.from(i);
      long last = ahead.to(i) - 1;
      if (i > 0) {
        out.append(',');
      }
      out.append(Long.toString(first - previous, 36)).append('.').append(Long.toString(last - first, 36));
      previous = last;
    }
    return out.toString();
  }

  private static String encodeZlib(long committed, SettledOffsets ahead) {
    ByteArrayOutputStream varints = new ByteArrayOutputStream();
    long cursor = committed;
    for (int i = 0; i < ahead.intervals(); i++) {
      writeVarint(varints, ahead.from(i) - cursor);
      writeVarint(varints, ahead.to(i) - ahead.from(i));
      cursor = ahead.to(i);
    }
    return Format.ZLIB_V1.prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(deflate(varints.toByteArray()));
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
