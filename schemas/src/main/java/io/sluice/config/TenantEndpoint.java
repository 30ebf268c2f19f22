package io.sluice.config;

import java.net.URI;
import java.util.List;

/**
 * A tenant's own endpoint toward a per-tenant provider ({@code tenants.<id>.endpoints.<provider>}):
 * a URL, and optionally its own limits instead of the provider's.
 *
 * @param url    where this tenant's calls go; an event may add a relative path, never a host
 * @param limits this endpoint's limits, as a provider's {@code limits}; empty: the provider's
 */
public record TenantEndpoint(URI url, List<ProviderLimit> limits) {
  public TenantEndpoint {
    limits = limits == null ? List.of() : List.copyOf(limits);
  }

  /** An endpoint with the provider's limits. */
  public TenantEndpoint(URI url) {
    this(url, List.of());
  }

  /** The limits enforced toward this endpoint: its own, or else {@code provider}'s. */
  public List<ProviderLimit> limitsUnder(ProviderConfig provider) {
    return limits.isEmpty() ? provider.limits() : limits;
  }
}
