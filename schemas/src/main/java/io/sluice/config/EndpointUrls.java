package io.sluice.config;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * The one rule for a tenant's endpoint URL, whether it comes from the configuration file
 * ({@code tenants.<id>.endpoints}, {@link ConfigChecks}) or from the runtime tenant registry
 * ({@code EndpointInput}): before issue 33 the file's were checked less (an {@code http://} or
 * {@code user:pass@} URL passed, plain http rode on {@code allowPrivateNetworks}). Pure.
 *
 * <ul>
 *   <li>absolute, with a host, {@code https}; {@code http} only when the provider sets
 *       {@code allowPlainHttp: true} (its own switch, not {@code allowPrivateNetworks});</li>
 *   <li>no user information (it would not be sent: credentials belong in the provider's
 *       {@code auth}) and no fragment (never sent);</li>
 *   <li>a host the provider's {@code allowedHosts} admit, and unless it sets
 *       {@code allowPrivateNetworks: true}, not an internal address written as such
 *       ({@link EndpointHosts#literalRefusal}); a name is checked again at every call.</li>
 * </ul>
 */
public final class EndpointUrls {
  private EndpointUrls() {}

  /** Why {@code uri} cannot be provider {@code name}'s endpoint, or empty. */
  public static Optional<String> problem(String name, ProviderConfig provider, URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    ProviderEndpoints endpoints = provider.endpoints();
    if (!uri.isAbsolute() || uri.getHost() == null
        || !(scheme.equals("https") || scheme.equals("http"))) {
      return Optional.of("expected an absolute https URL with a host, got " + shown(uri));
    }
    if (!scheme.equals("https") && !endpoints.allowPlainHttp()) {
      return Optional.of("expected https, got " + shown(uri) + " (http only toward providers "
          + "with allowPlainHttp: true)");
    }
    if (uri.getRawUserInfo() != null) {
      return Optional.of("has user information (user:password@), which is not sent: put "
          + "credentials in providers." + name + ".auth");
    }
    if (uri.getRawFragment() != null) {
      return Optional.of("has a fragment (#...), which is never sent: remove it");
    }
    String host = uri.getHost();
    if (!EndpointHosts.allowed(host, endpoints.allowedHosts())) {
      return Optional.of("host \"" + host + "\" is not in providers." + name
          + ".allowedHosts (" + String.join(", ", endpoints.allowedHosts()) + ")");
    }
    if (!endpoints.allowPrivateNetworks()) {
      Optional<String> why = EndpointHosts.literalRefusal(host);
      if (why.isPresent()) {
        return Optional.of("host \"" + host + "\" is " + why.get() + "; per-tenant endpoints may "
            + "not reach internal addresses unless providers." + name
            + ".allowPrivateNetworks is true");
      }
    }
    return Optional.empty();
  }

  /**
   * A URL as logs and refusals may show it, quoted: scheme, host, port and path (at most 120
   * characters), with no user information, and the query, which may carry a secret, as
   * {@code ?...}.
   */
  public static String shown(URI url) {
    StringBuilder out = new StringBuilder();
    if (url.getScheme() != null) {
      out.append(url.getScheme()).append("://");
    }
    if (url.getHost() != null) {
      out.append(url.getHost());
      if (url.getPort() >= 0) {
        out.append(':').append(url.getPort());
      }
    }
    if (url.getRawPath() != null) {
      out.append(url.getRawPath());
    }
    if (url.getRawQuery() != null) {
      out.append("?...");
    }
    String s = out.toString();
    return "\"" + (s.length() > 120 ? s.substring(0, 120) + "..." : s) + "\"";
  }
}
