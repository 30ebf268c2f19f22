package io.sluice.redis.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.EndpointHosts;
import io.sluice.config.EndpointUrls;
import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderLimit;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.redis.tenants.TenantInput.Refused;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A tenant's endpoints as an operator gives them to the registry, checked as the configuration
 * loader checks the file's ({@code ConfigChecks}) and a little more: every refusal names its field
 * ({@code endpoints.<provider>}, {@code endpoints.<provider>.url}, {@code endpoints.<provider>.rate}).
 *
 * <ul>
 *   <li>only toward a configured provider with {@code endpoints: perTenant};</li>
 *   <li>a URL of at most {@value #MAX_URL} characters, absolute, with a host, no user information
 *       ({@code user:password@}: the provider's {@code auth} is where credentials go) and no
 *       fragment;</li>
 *   <li>{@code https}, unless the provider sets {@code allowPrivateNetworks: true} (tests, labs and
 *       trusted networks, where {@code http} is allowed too);</li>
 *   <li>a host the provider's {@code allowedHosts} admit, and, unless it allows private networks,
 *       not an internal address written as such ({@link EndpointHosts#literalRefusal}); a name is
 *       checked again at every call by what it resolves to, as the file's are;</li>
 *   <li>an optional {@code rate} of its own, as the file's ({@code 5/s}), at most
 *       {@value TenantInput#MAX_REFILL_TEXT} per second;</li>
 *   <li>at most {@value #MAX_ENDPOINTS} endpoints per tenant.</li>
 * </ul>
 *
 * <p>A URL may carry a secret in its query (some webhooks do): a refusal never quotes one, it
 * shows the URL as {@link #shown} does (no user information, the query as {@code ?...}).
 */
final class EndpointInput {
  /** Longest endpoint URL. */
  public static final int MAX_URL = 1_000;
  /** Most endpoints one tenant's record holds. */
  public static final int MAX_ENDPOINTS = 8;

  private EndpointInput() {}

  /**
   * A command line's {@code PROVIDER=URL} or {@code PROVIDER=URL,rate=RATE}
   * ({@code hooks=https://hooks.acme.example/in,rate=5/s}), checked.
   */
  static Map.Entry<String, TenantEndpoint> fromCommandLine(SluiceConfig config, String spec) {
    if (spec == null || spec.length() > MAX_URL + TenantInput.MAX_TEXT) {
      throw new Refused("endpoints", spec == null ? "missing"
          : "longer than " + (MAX_URL + TenantInput.MAX_TEXT) + " characters");
    }
    int eq = spec.indexOf('=');
    if (eq < 1) {
      throw new Refused("endpoints", "expected PROVIDER=URL or PROVIDER=URL,rate=RATE like "
          + "hooks=https://hooks.acme.example/in,rate=5/s");
    }
    String provider = spec.substring(0, eq).strip();
    String rest = spec.substring(eq + 1).strip();
    String rate = null;
    int comma = rest.lastIndexOf(",rate=");
    if (comma >= 0 && rest.indexOf(',', comma + 1) < 0) {
      rate = rest.substring(comma + ",rate=".length()).strip();
      rest = rest.substring(0, comma).strip();
    }
    return Map.entry(perTenant(config, provider), checked(config, provider, rest, rate));
  }

  /**
   * An API body's {@code endpoints}: {@code {"hooks": "https://..."}} or
   * {@code {"hooks": {"url": "https://...", "rate": "5/s"}}}, checked.
   */
  static Map<String, TenantEndpoint> fromJson(SluiceConfig config, JsonNode endpoints) {
    Map<String, TenantEndpoint> out = new TreeMap<>();
    if (endpoints == null || endpoints.isNull()) {
      return out;
    }
    if (!endpoints.isObject()) {
      throw new Refused("endpoints", "expected an object of provider to a URL or {url, rate}");
    }
    if (endpoints.size() > MAX_ENDPOINTS) {
      throw tooMany(endpoints.size());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = endpoints.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String provider = perTenant(config, e.getKey());
      JsonNode one = e.getValue();
      String at = "endpoints." + provider;
      if (one.isTextual()) {
        out.put(provider, checked(config, provider, one.textValue(), null));
        continue;
      }
      if (!one.isObject() || !one.path("url").isTextual()
          || one.has("rate") && !one.get("rate").isTextual()
          || one.has("secret") && !one.get("secret").isTextual()) {
        throw new Refused(at, "expected a URL, or {\"url\": \"https://...\", \"rate\": \"5/s\","
            + " \"secret\": \"whsec_...\"}");
      }
      for (Iterator<String> f = one.fieldNames(); f.hasNext(); ) {
        String field = f.next();
        if (!field.equals("url") && !field.equals("rate") && !field.equals("secret")) {
          throw new Refused(at + "." + TenantInput.shown(field).replace("\"", ""),
              "unknown field (expected url, rate, secret)");
        }
      }
      TenantEndpoint endpoint = checked(config, provider, one.path("url").textValue(),
          one.has("rate") ? one.get("rate").textValue() : null);
      if (one.has("secret")) {
        endpoint = endpoint.withSecret(Optional.of(EndpointSecrets.given(config, provider,
            one.get("secret").textValue())));
      }
      out.put(provider, endpoint);
    }
    return out;
  }

  /** Refused when a tenant would hold more than {@value #MAX_ENDPOINTS} endpoints. */
  static void checkCount(Map<String, TenantEndpoint> endpoints) {
    if (endpoints.size() > MAX_ENDPOINTS) {
      throw tooMany(endpoints.size());
    }
  }

  /** {@code provider} when it is a configured per-tenant provider, else refused. */
  static String perTenant(SluiceConfig config, String provider) {
    ProviderConfig p = config.providers().get(provider);
    if (p == null || !p.perTenant()) {
      String those = config.providers().entrySet().stream()
          .filter(e -> e.getValue().perTenant()).map(Map.Entry::getKey).sorted()
          .collect(Collectors.joining(", "));
      throw new Refused("endpoints." + TenantInput.shown(provider).replace("\"", ""),
          "not a provider with endpoints: perTenant (those: " + (those.isEmpty() ? "none" : those)
              + ")");
    }
    return provider;
  }

  /** The endpoint {@code url} (and {@code rate}, null for the provider's) toward {@code provider}, checked. */
  static TenantEndpoint checked(SluiceConfig config, String provider, String url, String rate) {
    String at = "endpoints." + provider + ".url";
    if (url == null || url.isEmpty()) {
      throw new Refused(at, "missing");
    }
    if (url.length() > MAX_URL) {
      throw new Refused(at, "longer than " + MAX_URL + " characters");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      // The text itself is not quoted: it may carry a secret.
      throw new Refused(at, "not a URL (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    Optional<String> why = problem(config, provider, uri);
    if (why.isPresent()) {
      throw new Refused(at, why.get());
    }
    List<ProviderLimit> limits = List.of();
    if (rate != null) {
      String r = "endpoints." + provider + ".rate";
      Rate parsed;
      try {
        parsed = Rate.parse(rate.length() > TenantInput.MAX_TEXT ? "" : rate);
      } catch (IllegalArgumentException e) {
        throw new Refused(r, "expected a rate above zero like 5/s, 300/m or 10/h, got "
            + TenantInput.shown(rate));
      }
      if (parsed.perSecond() > TenantInput.MAX_REFILL) {
        throw new Refused(r, "at most " + TenantInput.MAX_REFILL_TEXT + "/s, got "
            + TenantCodec.rate(parsed));
      }
      limits = List.of(ProviderLimit.rate(parsed.perSecond()));
    }
    return new TenantEndpoint(uri, limits);
  }

  /**
   * Why {@code endpoint} may not be {@code provider}'s endpoint under {@code config} now, or
   * empty: what {@link #checked} refuses of a URL already parsed. Asked again when the dispatcher
   * resolves a registered endpoint, so a reload that narrows {@code allowedHosts} or drops
   * {@code perTenant} is followed, and a value written to Redis by anything else is judged.
   */
  public static Optional<String> refusal(SluiceConfig config, String provider, TenantEndpoint endpoint) {
    ProviderConfig p = config.providers().get(provider);
    if (p == null || !p.perTenant()) {
      return Optional.of("not a provider with endpoints: perTenant");
    }
    Optional<String> why = problem(config, provider, endpoint.url());
    if (why.isEmpty() && endpoint.secret().isEmpty() && !p.request().signingSecrets().isEmpty()
        && !p.endpoints().sharedSigningSecret()) {
      // A record written before endpoints had their own secrets: signing it with the provider's
      // shared one is what issue 33 closed, and sending it unsigned would be refused anyway.
      return Optional.of("no signing secret of its own, and the provider does not set"
          + " sharedSigningSecret: true (sluice tenants rotate-secret TENANT --endpoint "
          + provider + " gives it one)");
    }
    return why;
  }

  private static Optional<String> problem(SluiceConfig config, String provider, URI uri) {
    if (uri.toString().length() > MAX_URL) {
      return Optional.of("longer than " + MAX_URL + " characters");
    }
    return EndpointUrls.problem(provider, config.providers().get(provider), uri);
  }

  /**
   * A URL as logs and refusals may show it: scheme, host, port and path, with no user
   * information, and the query, which may carry a secret, as {@code ?...}.
   */
  public static String shown(URI url) {
    return EndpointUrls.shown(url);
  }


  private static Refused tooMany(int count) {
    return new Refused("endpoints", "at most " + MAX_ENDPOINTS + " per tenant, got " + count);
  }
}
