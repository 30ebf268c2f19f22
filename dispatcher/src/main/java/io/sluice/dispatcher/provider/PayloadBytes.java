package io.sluice.dispatcher.provider;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * Cuts the {@code payload} value out of a WorkEvent's JSON bytes, exactly as the producer wrote it.
 *
 * <p>Why not re-serialize the parsed {@code JsonNode}: the contract says the payload is delivered
 * unchanged, and a parse/print round trip is not the identity. It drops whitespace, reorders
 * nothing but may reformat numbers ({@code 1.10} becomes {@code 1.1}, big decimals lose digits
 * when read as doubles) and re-escapes strings. Signed webhooks (an HMAC over the body) break on
 * any of these. So the payload is located with the streaming parser and sliced from the input.
 */
public final class PayloadBytes {
  private static final JsonFactory FACTORY = new JsonFactory();

  private PayloadBytes() {}

  /**
   * The bytes of the top-level {@code payload} field's value; empty when the event has none (or
   * it is JSON {@code null}).
   *
   * @throws IllegalArgumentException when the bytes are not a JSON object
   */
  public static byte[] of(byte[] eventJson) {
    try (JsonParser p = FACTORY.createParser(eventJson)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("a work event must be a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean isPayload = "payload".equals(p.currentName());
        JsonToken value = p.nextToken();
        if (!isPayload) {
          p.skipChildren();
          continue;
        }
        if (value == JsonToken.VALUE_NULL) {
          return new byte[0];
        }
        int start = (int) p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        // A string token is read lazily: finish it, or the location is still at its start.
        p.finishToken();
        int end = (int) p.currentLocation().getByteOffset();
        return Arrays.copyOfRange(eventJson, start, end);
      }
      return new byte[0];
    } catch (IOException e) {
      throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
    }
  }

}
