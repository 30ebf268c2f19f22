package io.sluice.config;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that seal the secrets Sluice keeps in its operator state ({@code secrets.sealingKeys}):
 * each endpoint's Standard Webhooks signing secret lives in the tenant record, in Redis and in the
 * compacted operator topic, and neither may hold it in the clear (issue 33). Whoever reads the
 * topic or Redis sees ciphertext; only a process given these keys (the dispatcher, to sign; the
 * CLI and the admin API, to seal and to show a secret to its operator) can open it.
 *
 * <p><b>The form</b>: {@code <key id>:<base64 of nonce (12 bytes) + AES-256-GCM ciphertext and
 * tag>}, the additional data being {@value #CONTEXT} (a sealed value of another kind of Sluice
 * state cannot be passed off as one of these). GCM authenticates: a value changed in Redis or the
 * topic, or opened with the wrong key, is refused rather than read as another secret. The nonce is
 * random per seal: at the few seals an operator makes, 96 random bits do not repeat.
 *
 * <p><b>Rotating a sealing key</b>: the first key listed seals; every key listed opens. List a new
 * key first and keep the old one below it; rotate each endpoint's secret (or write the record
 * again) to seal it anew; then remove the old key. A value sealed with a key no longer listed
 * cannot be opened: its endpoint's calls wait, {@code credential_unavailable}, naming the key id.
 *
 * <p>Each key is a {@link Secret} ({@code ${file:}} or {@code ${env:}}; never logged: this class's
 * {@link #toString} shows the ids only), the base64 of 32 random bytes
 * ({@code openssl rand -base64 32}); its id 1 to 32 of {@code A-Z a-z 0-9 _ -}.
 */
public final class SealingKeys {
  /** No key: nothing can be sealed or opened. */
  public static final SealingKeys NONE = new SealingKeys(Map.of());
  /** The additional authenticated data of every seal. */
  static final String CONTEXT = "sluice:endpoint-secret:v1";
  public static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,32}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, Secret> keys;

  private SealingKeys(Map<String, Secret> keys) {
    this.keys = keys;
  }

  /**
   * The keys by id, in order (the first seals).
   *
   * @throws IllegalArgumentException naming the id (never the key) when an id or a key is not one
   */
  public static SealingKeys of(Map<String, Secret> keys) {
    Map<String, Secret> checked = new LinkedHashMap<>();
    keys.forEach((id, key) -> {
      if (!ID.matcher(id).matches()) {
        throw new IllegalArgumentException("a key id is 1 to 32 of A-Z a-z 0-9 _ -");
      }
      if (key.isRead()) {
        key(id, key);
      }
      checked.put(id, key);
    });
    return new SealingKeys(Collections.unmodifiableMap(checked));
  }

  /** Whether a key is configured (else nothing is sealed, and no endpoint gets a secret of its own). */
  public boolean present() {
    return !keys.isEmpty();
  }

  /** The id of the key that seals. */
  public Optional<String> sealingKeyId() {
    return keys.keySet().stream().findFirst();
  }

  /**
   * {@code clear} sealed with the first key.
   *
   * @throws IllegalStateException when no key is configured
   */
  public String seal(String clear) {
    String id = sealingKeyId().orElseThrow(() -> new IllegalStateException(
        "secrets.sealingKeys: no key configured to seal a secret with"));
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    byte[] sealed = cipher(Cipher.ENCRYPT_MODE, key(id, keys.get(id)), nonce,
        clear.getBytes(StandardCharsets.UTF_8));
    ByteBuffer out = ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed);
    return id + ":" + Base64.getEncoder().encodeToString(out.array());
  }

  /**
   * The text {@code sealed} holds.
   *
   * @throws IllegalArgumentException (never quoting either text) when it is not sealed by one of
   *                                  these keys: an unknown key id, not this form, or altered
   */
  public String open(String sealed) {
    int colon = sealed.indexOf(':');
    String id = colon < 1 ? "" : sealed.substring(0, colon);
    Secret key = keys.get(id);
    if (key == null) {
      throw new IllegalArgumentException(colon < 1 ? "not a sealed secret (<key id>:<ciphertext>)"
          : "sealed with key " + (ID.matcher(id).matches() ? "\"" + id + "\"" : "(an unusable id)")
              + ", which secrets.sealingKeys does not hold");
    }
    byte[] all;
    try {
      all = Base64.getDecoder().decode(sealed.substring(colon + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("sealed with key \"" + id + "\", but not base64");
    }
    if (all.length <= NONCE_BYTES) {
      throw new IllegalArgumentException("sealed with key \"" + id + "\", but too short");
    }
    byte[] nonce = Arrays.copyOf(all, NONCE_BYTES);
    byte[] body = Arrays.copyOfRange(all, NONCE_BYTES, all.length);
    return new String(cipher(Cipher.DECRYPT_MODE, key(id, key), nonce, body),
        StandardCharsets.UTF_8);
  }

  private static byte[] cipher(int mode, SecretKeySpec key, byte[] nonce, byte[] input) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(CONTEXT.getBytes(StandardCharsets.UTF_8));
      return cipher.doFinal(input);
    } catch (AEADBadTagException e) {
      throw new IllegalArgumentException("does not open with its key (altered, or another key of"
          + " that id)");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM is part of every JDK", e);
    }
  }

  private static SecretKeySpec key(String id, Secret key) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(key.value().strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key \"" + id + "\" (" + key.reference()
          + ") is not base64 (openssl rand -base64 32 makes one)");
    }
    if (bytes.length != KEY_BYTES) {
      throw new IllegalArgumentException("key \"" + id + "\" (" + key.reference() + ") is "
          + bytes.length + " bytes; expected " + KEY_BYTES + " (openssl rand -base64 32)");
    }
    return new SecretKeySpec(bytes, "AES");
  }

  /** The ids only: never a key. */
  @Override
  public String toString() {
    return "SealingKeys" + keys.keySet();
  }
}
