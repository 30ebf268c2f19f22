package io.sluice.dispatcher.leak;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The text of {@code lua/leaky_bucket.lua} and its SHA-1, computed locally once: the dispatcher
 * calls EVALSHA with it and sends the text only when a Redis node answers NOSCRIPT (after a
 * restart, a failover or SCRIPT FLUSH).
 */
public record LeakyBucketScript(String text, String sha) {
  public static final String RESOURCE = "/lua/leaky_bucket.lua";

  public static LeakyBucketScript load() {
    try (InputStream in = LeakyBucketScript.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new LeakyBucketScript(text, sha1(text));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String sha1(String text) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-1");
      return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
