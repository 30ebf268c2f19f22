package io.sluice.dispatcher.provider;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The request of a batch ({@code batch:}): its body, a JSON array of the events' payloads, and
 * the key that names it.
 *
 * <p><b>Body.</b> {@code [p1,p2,...]}: each payload byte for byte as its producer wrote it (as a
 * single call sends it, never parsed and printed again), {@code null} for an event without one,
 * in the order the lane's fair queue served them. A JSON array rather than NDJSON: one
 * {@code Content-Type} the provider already declares, one document its signature covers, and a
 * payload's own newlines never split an item.
 *
 * <p><b>Key.</b> {@code batch-} and the first 32 hex digits of SHA-256 over the sorted event ids,
 * each as its UTF-8 length (four bytes, big-endian) and its bytes, so no id forges a boundary:
 * sent as {@code Idempotency-Key} and as the Standard Webhooks {@code webhook-id}. The same set of
 * events has the same key on every attempt, in whatever order the queue served them; a retry of a
 * partly failed batch resends only the failed events, a different set, under a different key.
 */
public final class BatchBody {
  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

  private BatchBody() {}

  /** The JSON array of {@code payloads} (an empty one standing for {@code null}). */
  public static byte[] of(List<byte[]> payloads) {
    int size = 2 + Math.max(0, payloads.size() - 1);
    for (byte[] p : payloads) {
      size += p.length == 0 ? NULL.length : p.length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(size);
    out.write('[');
    for (int i = 0; i < payloads.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      byte[] p = payloads.get(i);
      out.writeBytes(p.length == 0 ? NULL : p);
    }
    out.write(']');
    return out.toByteArray();
  }

  /** The bytes {@code payload} takes in a batch's body ({@link #of}). */
  public static int bytesOf(byte[] payload) {
    return payload.length == 0 ? NULL.length : payload.length;
  }

  /** The key of the batch of {@code eventIds}, whatever their order. */
  public static String key(List<String> eventIds) {
    List<String> sorted = new ArrayList<>(eventIds);
    Collections.sort(sorted);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String id : sorted) {
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        sha.update(bytes);
      }
      return "batch-" + HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
