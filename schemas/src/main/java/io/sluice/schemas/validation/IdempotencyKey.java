package io.sluice.schemas.validation;

/**
 * The rule for an event's {@code id}, which HTTP providers receive as the
 * {@code Idempotency-Key} request header: 1 to {@value #MAX_LENGTH} printable ASCII characters
 * (U+0020 to U+007E), not starting or ending with a space.
 *
 * <p>Why so narrow, and why refused rather than encoded:
 * <ul>
 *   <li>the IETF draft that defines {@code Idempotency-Key} (draft-ietf-httpapi-idempotency-key-header)
 *       makes its value a Structured Field String, which is printable ASCII only;
 *   <li>a header value cannot carry CR or LF (they would end the header) and {@code java.net.http}
 *       refuses control characters and anything above U+00FF, so such an id could never be sent:
 *       before this rule it was retried eight times as {@code connect_error} and then dead as
 *       {@code max_attempts}, each try costing a slot of the provider's rate;
 *   <li>HTTP strips spaces around a header value, so {@code " k"} would reach the provider as
 *       {@code "k"}: another key than the producer's;
 *   <li>an encoding (percent-encoding, base64) would hand the provider a key the producer never
 *       wrote, so the two could not match their records by it; the producer can choose its own
 *       encoding and knows which.
 * </ul>
 * The id is sent as written (as Stripe and most providers expect), not as a quoted Structured Field
 * String; every id this rule accepts is also a valid one. {@code work-event.schema.json} states
 * the same rule.
 */
final class IdempotencyKey {
  public static final int MAX_LENGTH = 128;

  private IdempotencyKey() {}

  /** Why {@code id} cannot be an idempotency key, as a sentence naming field 'id'; null when it can. */
  public static String problem(String id) {
    int length = id.codePointCount(0, id.length());
    if (length < 1 || length > MAX_LENGTH) {
      return "field 'id' must be 1 to " + MAX_LENGTH + " characters long, got " + length;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return "field 'id' must be printable ASCII (it is sent as the Idempotency-Key header; "
            + "no control characters, CR/LF or non-ASCII), got " + Shown.quoted(id);
      }
    }
    if (id.charAt(0) == ' ' || id.charAt(id.length() - 1) == ' ') {
      return "field 'id' must not start or end with a space (HTTP would strip it from the "
          + "Idempotency-Key header), got " + Shown.quoted(id);
    }
    return null;
  }
}
