package io.sluice.dispatcher.provider.signing;

import io.sluice.config.Secret;
import io.sluice.config.WebhookSecret;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs calls per the Standard Webhooks specification
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * the signed content is {@code <webhook-id>.<webhook-timestamp>.<body>}, each signature is
 * {@code v1,<base64 of HMAC-SHA256(key, content)>}, and {@code webhook-signature} lists one per
 * secret, separated by spaces. A receiver accepts a call when any one matches a key it holds, so
 * configuring the new secret next to the old one, then removing the old one once every receiver
 * has the new, rotates keys with no call refused.
 *
 * <p>The key of each secret is decoded again only when the secret's text changes (a file secret
 * rotated in place). A file rotated to text that is no Standard Webhooks secret (a typo, a key
 * without its {@code whsec_}) keeps the last valid key, with a warning naming the file, as
 * {@link Secret} keeps the last text when a file cannot be read: the events are not at fault,
 * and failing the calls would dead-letter every one of them as {@code invalid}.
 */
public final class StandardWebhooksSigner {
  private static final Logger LOG = LoggerFactory.getLogger(StandardWebhooksSigner.class);

  public static final String ID = "webhook-id";
  public static final String TIMESTAMP = "webhook-timestamp";
  public static final String SIGNATURE = "webhook-signature";

  private final List<Secret> secrets;
  private final Keys[] keys;

  public StandardWebhooksSigner(List<Secret> secrets) {
    if (secrets.isEmpty()) {
      throw new IllegalArgumentException("at least one secret");
    }
    this.secrets = List.copyOf(secrets);
    this.keys = new Keys[secrets.size()];
    for (int i = 0; i < keys.length; i++) {
      String text = this.secrets.get(i).value();
      keys[i] = Keys.of(text, new SecretKeySpec(WebhookSecret.key(text), "HmacSHA256"));
    }
  }

  /** The {@code webhook-signature} value for one call. */
  public String signature(String id, long timestampSeconds, byte[] body) {
    byte[] prefix = (id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    StringBuilder header = new StringBuilder();
    for (int i = 0; i < secrets.size(); i++) {
      Mac mac = key(i).mac();
      mac.update(prefix);
      mac.update(body);
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append("v1,").append(Base64.getEncoder().encodeToString(mac.doFinal()));
    }
    return header.toString();
  }

  private Keys key(int i) {
    Secret secret = secrets.get(i);
    String text = secret.value();
    Keys cached = keys[i];
    if (!cached.text.equals(text)) {
      try {
        cached = Keys.of(text, new SecretKeySpec(WebhookSecret.key(text), "HmacSHA256"));
      } catch (IllegalArgumentException e) {
        LOG.warn("signing secret {} is no longer a Standard Webhooks secret ({}); signing with its"
            + " last valid key until it is", secret.reference(), e.getMessage());
        cached = new Keys(text, cached.key, cached.initialised);
      }
      keys[i] = cached;
    }
    return cached;
  }

  private static Mac mac(SecretKeySpec key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac;
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /**
   * A secret's text, its key, and a Mac initialised with it, never used itself: each signature
   * works on a clone ({@link #mac}), which costs less than looking up and initialising a Mac per
   * call (a call is signed per secret, at thousands of calls a second).
   */
  private record Keys(String text, SecretKeySpec key, Mac initialised) {
    static Keys of(String text, SecretKeySpec key) {
      return new Keys(text, key, StandardWebhooksSigner.mac(key));
    }

    /** A Mac of this key, ready for one signature. */
    Mac mac() {
      try {
        return (Mac) initialised.clone();
      } catch (CloneNotSupportedException e) {
        return StandardWebhooksSigner.mac(key);
      }
    }
  }
}
