package io.sluice.config;

import java.util.List;
import java.util.Optional;

/**
 * A provider's per-tenant endpoints for a test, which names only what it sets. Unset, they are
 * the configuration's defaults ({@link ConfigDefaults}): no total rate, any public host, https
 * only, the default disable and probe times and {@code whileDisabled}, no shared signing secret.
 */
public final class ProviderEndpointsBuilder {
  private boolean allowPrivateNetworks = ConfigDefaults.ALLOW_PRIVATE_NETWORKS;
  private boolean allowPlainHttp;

  private ProviderEndpointsBuilder() {}

  /** Each tenant's calls to its own endpoint ({@code endpoints: perTenant}). */
  public static ProviderEndpointsBuilder perTenant() {
    return new ProviderEndpointsBuilder();
  }

  public ProviderEndpointsBuilder allowPrivateNetworks() {
    this.allowPrivateNetworks = true;
    return this;
  }

  public ProviderEndpointsBuilder allowPlainHttp() {
    this.allowPlainHttp = true;
    return this;
  }

  public ProviderEndpoints build() {
    return new ProviderEndpoints(true, Optional.empty(), List.of(), allowPrivateNetworks,
        ConfigDefaults.DISABLE_AFTER, ConfigDefaults.PROBE_AFTER, ConfigDefaults.WHILE_DISABLED,
        allowPlainHttp, false);
  }
}
