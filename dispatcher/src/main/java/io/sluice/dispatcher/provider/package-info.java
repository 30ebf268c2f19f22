/**
 * Calling a provider over HTTP: the request built from an event and the provider's configuration,
 * sent on a pinned connection with a whole deadline and a bounded body ({@code HttpProvider}), and
 * what comes back ({@code ProviderResult}, the captured headers and body excerpt).
 */
package io.sluice.dispatcher.provider;
