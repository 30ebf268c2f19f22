package io.sluice.config;

import java.net.URI;

/**
 * How Sluice proves who it is to a provider ({@code auth:}): the credential is configuration,
 * never an event attribute, so it does not sit in Kafka for the topics' retention.
 */
public sealed interface ProviderAuth {
  /** No credential (the default). */
  ProviderAuth NONE = new None();

  /** No credential. */
  record None() implements ProviderAuth {}

  /** {@code Authorization: Bearer <token>}. */
  record Bearer(Secret token) implements ProviderAuth {}

  /** {@code <name>: <value>}, e.g. {@code X-Api-Key}. */
  record Header(String name, Secret value) implements ProviderAuth {}

  /** {@code Authorization: Basic base64(user:password)} (RFC 7617, UTF-8). */
  record Basic(Secret user, Secret password) implements ProviderAuth {}

  /**
   * {@code Authorization: Bearer <token>}, the token from the OAuth2 client-credentials grant
   * (RFC 6749 section 4.4).
   *
   * @param scope    null for none
   * @param audience null for none (an extension some servers require, e.g. Auth0)
   */
  record OAuth2(URI tokenUrl, String clientId, Secret clientSecret, String scope,
      String audience) implements ProviderAuth {}
}
