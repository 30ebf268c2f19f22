package io.sluice.config;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * A tenant's own endpoint toward a per-tenant provider ({@code tenants.<id>.endpoints.<provider>}):
 * a URL, and optionally its own limits instead of the provider's, its own signing secret, and
 * whether the provider's partner credential goes to it.
 *
 * @param url              where this tenant's calls go; an event may add a relative path, never a
 *                         host
 * @param limits           this endpoint's limits, as a provider's {@code limits}; empty: the
 *                         provider's
 * @param secret           this endpoint's own signing secret; empty: none (then the provider's
 *                         only where it sets {@code sharedSigningSecret: true})
 * @param sendProviderAuth the provider's {@code auth} (a bearer, header, basic or OAuth2
 *                         credential meant for a partner API) goes to this endpoint; false by
 *                         default: a tenant's server never receives it (issue 33). Only the file
 *                         sets it, endpoint by endpoint.
 */
public record TenantEndpoint(URI url, List<ProviderLimit> limits, Optional<EndpointSecret> secret,
    boolean sendProviderAuth) {
  public TenantEndpoint {
    limits = limits == null ? List.of() : List.copyOf(limits);
    secret = secret == null ? Optional.empty() : secret;
  }

  /** An endpoint with its own limits (or the provider's), no secret of its own. */
  public TenantEndpoint(URI url, List<ProviderLimit> limits) {
    this(url, limits, Optional.empty(), false);
  }

  /** An endpoint with the provider's limits. */
  public TenantEndpoint(URI url) {
    this(url, List.of());
  }

  /** The limits enforced toward this endpoint: its own, or else {@code provider}'s. */
  public List<ProviderLimit> limitsUnder(ProviderConfig provider) {
    return limits.isEmpty() ? provider.limits() : limits;
  }

  /** This endpoint with {@code next} as its own secret. */
  public TenantEndpoint withSecret(Optional<EndpointSecret> next) {
    return new TenantEndpoint(url, limits, next, sendProviderAuth);
  }
}
