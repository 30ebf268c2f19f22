/**
 * Endpoints per tenant: a per-tenant provider calls each tenant's own endpoint. Which endpoints
 * are healthy ({@code EndpointHealth}: disabled after failing, one probe), which busy endpoints
 * have a lane ({@code EndpointLanes}: bounded, retired when idle), how a provider's total is
 * shared ({@code TotalShares}), and the address checked at every call ({@code GuardedEndpoint},
 * {@code EndpointLookups}). See docs/providers.md.
 */
package io.sluice.dispatcher.endpoint;
