package io.sluice.dispatcher.provider.auth;

import io.sluice.schemas.config.ProviderAuth;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

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

  /** The header's value now, or null for {@link ProviderAuth.None}. */
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
}
