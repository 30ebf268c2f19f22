package io.sluice.dispatcher.provider.auth;

import io.sluice.config.ProviderAuth;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The request header a provider's {@link ProviderAuth} sends. The value is built per call from
 * the secret's current text, so a rotated secret file is in use within its re-read interval.
 */
public final class Credentials {
  public static final String AUTHORIZATION = "Authorization";

  private Credentials() {}

  /** The header's name, or null for {@link ProviderAuth.None}. */
  public static String headerName(ProviderAuth auth) {
    if (auth instanceof ProviderAuth.Header h) {
      return h.name();
    }
    return auth instanceof ProviderAuth.None ? null : AUTHORIZATION;
  }

  /**
   * The header's value now, or null for {@link ProviderAuth.None} and for
   * {@link ProviderAuth.OAuth2} (whose token comes from {@link OAuth2Tokens}).
   */
  public static String headerValue(ProviderAuth auth) {
    if (auth instanceof ProviderAuth.Bearer b) {
      return "Bearer " + b.token().value();
    }
    if (auth instanceof ProviderAuth.Basic b) {
      return "Basic " + Base64.getEncoder().encodeToString(
          (b.user().value() + ":" + b.password().value()).getBytes(StandardCharsets.UTF_8));
    }
    if (auth instanceof ProviderAuth.Header h) {
      return h.value().value();
    }
    return null;
  }

  /** The secrets' own texts (a password, a token), longest first, to mask them in text. */
  public static List<String> secretValues(ProviderAuth auth) {
    List<String> values = new ArrayList<>();
    if (auth instanceof ProviderAuth.Bearer b) {
      values.add(b.token().value());
    } else if (auth instanceof ProviderAuth.Basic b) {
      values.add(b.password().value());
    } else if (auth instanceof ProviderAuth.Header h) {
      values.add(h.value().value());
    } else if (auth instanceof ProviderAuth.OAuth2 o) {
      values.add(o.clientSecret().value());
    }
    values.sort(Comparator.comparingInt(String::length).reversed());
    return values;
  }
}
