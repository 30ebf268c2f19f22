package io.sluice.dispatcher.provider;

import java.util.Map;

/**
 * What a provider's {@code capture:} keeps of one answer, for its outcome or dead letter.
 *
 * @param headers the listed response headers present in the answer, lower-case name to value
 *                (lines joined by ", "), each value at most {@link #MAX_HEADER_CHARS} characters
 * @param body    the first bytes of the body (at most {@code capture.bodyBytes}), decoded as
 *                UTF-8 with control characters as '?' and the provider's secrets as
 *                {@code ***}; null when no body is captured
 */
public record Captured(Map<String, String> headers, String body) {
  public static final Captured NONE = new Captured(Map.of(), null);
  /** The longest captured header value kept. */
  public static final int MAX_HEADER_CHARS = 256;

  public Captured {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
  }
}
