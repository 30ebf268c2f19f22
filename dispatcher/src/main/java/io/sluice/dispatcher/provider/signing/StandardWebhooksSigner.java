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
 * rotated in place).
 */
public final class StandardWebhooksSigner {
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
  }

  /** The {@code webhook-signature} value for one call. */
  public String signature(String id, long timestampSeconds, byte[] body) {
    byte[] prefix = (id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    StringBuilder header = new StringBuilder();
    for (int i = 0; i < secrets.size(); i++) {
      Mac mac = mac(key(i));
      mac.update(prefix);
      mac.update(body);
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append("v1,").append(Base64.getEncoder().encodeToString(mac.doFinal()));
    }
    return header.toString();
  }

  private SecretKeySpec key(int i) {
    String text = secrets.get(i).value();
    Keys cached = keys[i];
    if (cached == null || !cached.text.equals(text)) {
      cached = new Keys(text, new SecretKeySpec(WebhookSecret.key(text), "HmacSHA256"));
      keys[i] = cached;
    }
    return cached.key;
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

  private record Keys(String text, SecretKeySpec key) {}
}
