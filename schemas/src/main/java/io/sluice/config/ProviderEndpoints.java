package io.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where a provider's calls go: its one {@code url}, or ({@code endpoints: perTenant}) each tenant's
 * own endpoint, {@code tenants.<id>.endpoints.<provider>}. A per-tenant provider's {@code rate} and
 * {@code limits} are each endpoint's (a tenant may override them); {@code totalRate} caps them
 * all together (the dispatcher's {@code ProviderTotal}).
 *
 * @param perTenant            each tenant's calls go to its own endpoint, never to {@code url}
 * @param totalRate            the most calls per second across all endpoints of the provider
 *                             (shared by every dispatcher instance); empty: no cap beyond each
 *                             endpoint's own
 * @param allowedHosts         host patterns an endpoint may name: {@code api.example.com} exactly,
 *                             or {@code *.example.com} for any host below it; empty: any public
 *                             host
 * @param allowPrivateNetworks endpoints may be private, loopback, link-local, multicast or
 *                             unspecified addresses ({@link EndpointHosts}); false by default, so
 *                             a tenant cannot point Sluice at internal services
 * @param disableAfter         an endpoint failing (5xx, timeouts, refused connections) without a
 *                             success for this long is disabled
 * @param probeAfter           a disabled endpoint is probed with one call after this cool-off
 * @param whileDisabled        what a disabled endpoint's events do: wait (no attempt spent) or go
 *                             to the dead letters as {@code endpoint_disabled}
 * @param allowPlainHttp       endpoints may be {@code http://} (their calls and signatures in the
 *                             clear); false by default. Its own switch, apart from
 *                             {@code allowPrivateNetworks}: plain http to a lab endpoint must not
 *                             need the address guard turned off, nor turning the guard off
 *                             allow plain http (issue 33)
 * @param sharedSigningSecret  an endpoint without a signing secret of its own is signed with the
 *                             provider's {@code signing} secrets, which every such endpoint's
 *                             receiver then holds (so any of them can sign for the others); false
 *                             by default: a file's endpoint without its own {@code secret} is
 *                             refused at start while the provider signs, and a registry endpoint
 *                             without one is not called (issue 33)
 */
public record ProviderEndpoints(
    boolean perTenant,
    Optional<Rate> totalRate,
    List<String> allowedHosts,
    boolean allowPrivateNetworks,
    Duration disableAfter,
    Duration probeAfter,
    WhileDisabled whileDisabled,
    boolean allowPlainHttp,
    boolean sharedSigningSecret) {

  /** One URL for the provider, as before per-tenant endpoints. */
  public static final ProviderEndpoints SINGLE = new ProviderEndpoints(false, Optional.empty(),
      List.of(), ConfigDefaults.ALLOW_PRIVATE_NETWORKS, ConfigDefaults.DISABLE_AFTER,
      ConfigDefaults.PROBE_AFTER, ConfigDefaults.WHILE_DISABLED, false, false);

  public ProviderEndpoints {
    totalRate = totalRate == null ? Optional.empty() : totalRate;
    allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
  }

  /** What a disabled endpoint's events do. */
  public enum WhileDisabled {
    /** Held until the endpoint is enabled again (or their deadline ends them); no attempt spent. */
    WAIT("wait"),
    /** Dead-lettered at once with reason {@code endpoint_disabled}. */
    DEAD_LETTER("dead_letter");

    private final String code;

    WhileDisabled(String code) {
      this.code = code;
    }

    /** As written in the configuration. */
    public String code() {
      return code;
    }

    static WhileDisabled fromCode(String code) {
      for (WhileDisabled w : values()) {
        if (w.code.equals(code)) {
          return w;
        }
      }
      throw new IllegalArgumentException(code);
    }
  }
}
