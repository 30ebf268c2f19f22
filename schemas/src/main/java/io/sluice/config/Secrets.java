package io.sluice.config;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which configuration values are secrets, and how to show a setting without them.
 *
 * <p>Secrets are the user info of a Redis URI ({@code redis://user:password@host}) and every Kafka
 * client property whose name says it holds a credential: {@code sasl.jaas.config} (it embeds the
 * password), and any name containing {@code password}, {@code secret}, {@code credential} or
 * {@code token}, or ending in {@code .key} ({@code ssl.keystore.key}, a PEM private key). They may
 * appear in no log line, error message or {@code /health} answer: every place that shows a Redis
 * URI or the Kafka properties shows {@link #uri} or {@link #properties} instead, and the
 * configuration errors are scrubbed of every secret value as a last line of defence
 * ({@link #scrub}).
 */
public final class Secrets {
  /** What stands in for a secret. */
  public static final String MASK = "***";

  private static final Pattern SECRET_KEY = Pattern.compile(
      "sasl\\.jaas\\.config|.*(password|secret|credential|token).*|.*\\.key");

  private Secrets() {}

  /** True if the Kafka client property {@code key} holds a credential. */
  public static boolean isSecretProperty(String key) {
    return SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).matches();
  }

  /**
   * A Redis URI with its user info (user name and password) replaced by {@link #MASK}:
   * {@code redis://:s3cret@h:6379} becomes {@code redis://***@h:6379}. Text that does not look
   * like a URI is returned as is when it has no '@', else masked up to its last '@', so even a
   * malformed URI never shows its password.
   */
  public static String uri(String uri) {
    if (uri == null) {
      return null;
    }
    int at = uri.lastIndexOf('@');
    if (at < 0) {
      return uri;
    }
    int scheme = uri.indexOf("://");
    int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
    return uri.substring(0, start) + MASK + uri.substring(at);
  }

  /** The properties with each secret value replaced by {@link #MASK}, in the same order. */
  public static Map<String, String> properties(Map<String, String> properties) {
    Map<String, String> shown = new LinkedHashMap<>();
    properties.forEach((k, v) -> shown.put(k, isSecretProperty(k) ? MASK : v));
    return shown;
  }

  private static final Pattern URI_USER_INFO =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^\\s/@\"',]*@");
  private static final Pattern JAAS_PASSWORD =
      Pattern.compile("((?i)password\\s*=\\s*)(\"[^\"]*\"|'[^']*'|[^\\s;]+)");

  /**
   * {@code text} with what looks like a secret masked: the user info of any URI
   * ({@code scheme://user:pass@}) and the value of a JAAS {@code password=...} option. For text
   * that quotes a configuration it never parsed (a YAML syntax error shows the line).
   */
  public static String scrubLikely(String text) {
    String scrubbed = URI_USER_INFO.matcher(text).replaceAll("$1" + MASK + "@");
    return JAAS_PASSWORD.matcher(scrubbed).replaceAll("$1" + MASK);
  }

  /** {@code text} with every occurrence of each non-empty secret replaced by {@link #MASK}. */
  public static String scrub(String text, Collection<String> secrets) {
    String scrubbed = text;
    for (String secret : secrets) {
      if (secret != null && !secret.isEmpty()) {
        scrubbed = scrubbed.replace(secret, MASK);
      }
    }
    return scrubbed;
  }
}
