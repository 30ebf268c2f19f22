/**
 * A provider's credentials: static headers, OAuth2 client-credentials tokens fetched and renewed
 * before they expire ({@code OAuth2Tokens}), and the TLS contexts of mutual TLS.
 */
package io.sluice.dispatcher.provider.auth;
