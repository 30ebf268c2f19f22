package io.sluice.schemas.trace;

import java.nio.charset.StandardCharsets;

/**
 * A W3C Trace Context {@code traceparent} (https://www.w3.org/TR/trace-context/#traceparent-header):
 * {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}, lower-case hex.
 *
 * <p>On {@code sluice.inbound} the header is a producer's, so it is hostile input: {@link #parse}
 * reads it under a bound ({@link #MAX_BYTES}) and answers null for anything the specification
 * says a receiver must not use (wrong length or separators, upper-case or non-hex digits, an
 * all-zero trace or parent id, version {@code ff}, or version {@code 00} with anything after the
 * flags). A null means "no usable parent": the event starts a trace of its own, and the bad header
 * is replaced, never an error. A later version is read by its first four fields, as the
 * specification asks, and written back as version {@code 00}.
 *
 * @param traceId  32 lower-case hex digits, not all zero
 * @param parentId 16 lower-case hex digits, not all zero: the span the next one is a child of
 * @param sampled  the {@code sampled} flag (bit 0 of the flags)
 */
public record TraceParent(String traceId, String parentId, boolean sampled) {
  /** The header's name, in Kafka records and in the HTTP request to a provider. */
  public static final String HEADER = "traceparent";
  /**
   * The longest value read: version 00 is 55 characters; a future version may append fields, and
   * 256 leaves room for that while a producer cannot make the gate scan a megabyte.
   */
  public static final int MAX_BYTES = 256;
  private static final int LENGTH = 55;

  public TraceParent {
    if (!hex(traceId, 32) || !hex(parentId, 16)) {
      throw new IllegalArgumentException("not a trace id and parent id: " + traceId + ", " + parentId);
    }
  }

  /** The header as W3C writes it, version 00. */
  public String header() {
    return "00-" + traceId + "-" + parentId + (sampled ? "-01" : "-00");
  }

  /** {@link #header()} as UTF-8 bytes, for a Kafka header. */
  public byte[] bytes() {
    return header().getBytes(StandardCharsets.US_ASCII);
  }

  /** The header's value read from {@code value} (a Kafka header's bytes), or null if unusable. */
  public static TraceParent parse(byte[] value) {
    if (value == null || value.length < LENGTH || value.length > MAX_BYTES) {
      return null;
    }
    return parse(new String(value, StandardCharsets.ISO_8859_1));
  }

  /** The header's value read from {@code value}, or null if unusable. */
  public static TraceParent parse(String value) {
    if (value == null || value.length() < LENGTH || value.length() > MAX_BYTES) {
      return null;
    }
    String version = value.substring(0, 2);
    if (!hex(version, 2) || version.equals("ff")) {
      return null;
    }
    if (value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-') {
      return null;
    }
    if (version.equals("00") ? value.length() != LENGTH : value.length() > LENGTH && value.charAt(LENGTH) != '-') {
      return null;
    }
    String traceId = value.substring(3, 35);
    String parentId = value.substring(36, 52);
    String flags = value.substring(53, 55);
    if (!hex(traceId, 32) || !hex(parentId, 16) || !hex(flags, 2)) {
      return null;
    }
    return new TraceParent(traceId, parentId, (Integer.parseInt(flags, 16) & 1) == 1);
  }

  /** {@code s} is {@code n} lower-case hex digits, not all zero (a version of 00 is allowed). */
  private static boolean hex(String s, int n) {
    if (s == null || s.length() != n) {
      return false;
    }
    boolean nonZero = n == 2;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
      nonZero |= c != '0';
    }
    return nonZero;
  }
}
