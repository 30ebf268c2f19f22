package io.sluice.config;

import java.util.Base64;

/**
 * A Standard Webhooks signing secret: {@code whsec_} followed by the base64 of the key, as the
 * specification's libraries generate and read it.
 */
public final class WebhookSecret {
  public static final String PREFIX = "whsec_";
  /** The specification asks for keys of 24 to 64 random bytes. */
  public static final int MIN_KEY_BYTES = 24;
  public static final int MAX_KEY_BYTES = 64;

  private WebhookSecret() {}

  /**
   * The HMAC key a secret stands for.
   *
   * @throws IllegalArgumentException (never quoting the secret) when it is not {@code whsec_}
   *                                  and the base64 of 24 to 64 bytes
   */
  public static byte[] key(String secret) {
    if (!secret.startsWith(PREFIX)) {
      throw new IllegalArgumentException("expected a Standard Webhooks secret: whsec_ followed by "
          + "the base64 of 24 to 64 random bytes");
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the part after whsec_ is not base64");
    }
    if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("the key after whsec_ is " + key.length
          + " bytes; expected " + MIN_KEY_BYTES + " to " + MAX_KEY_BYTES);
    }
    return key;
  }
}
