package io.sluice.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A provider's configuration for a test, which names only what it sets. Unset, a provider is
 * plain: 10/s, 4 in flight, a 5 s timeout, {@code onRedisDown: local}, not shadow, no forwarded
 * headers, a largest cost of 100, no quotas, its rate its only limit, and the default answer
 * bounds, request and single endpoint (each null here, as the record's own defaults).
 */
public final class ProviderConfigBuilder {
  private final URI url;
  private Rate rate = new Rate(10);
  private int maxInFlight = 4;
  private Duration timeout = Duration.ofSeconds(5);
  private RedisDownPolicy onRedisDown = RedisDownPolicy.LOCAL;
  private List<String> forwardHeaders = List.of();
  private int maxCost = 100;
  private Map<String, Quota> quotas = Map.of();
  private ProviderRequest request;
  private ProviderEndpoints endpoints;

  private ProviderConfigBuilder(URI url) {
    this.url = url;
  }

  /** A plain provider at {@code url}. */
  public static ProviderConfigBuilder providerAt(URI url) {
    return new ProviderConfigBuilder(url);
  }

  /** A plain provider at {@code url}. */
  public static ProviderConfigBuilder providerAt(String url) {
    return providerAt(URI.create(url));
  }

  public ProviderConfigBuilder rate(double perSecond) {
    this.rate = new Rate(perSecond);
    return this;
  }

  public ProviderConfigBuilder maxInFlight(int maxInFlight) {
    this.maxInFlight = maxInFlight;
    return this;
  }

  public ProviderConfigBuilder timeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  public ProviderConfigBuilder onRedisDown(RedisDownPolicy onRedisDown) {
    this.onRedisDown = onRedisDown;
    return this;
  }

  public ProviderConfigBuilder forwardHeaders(List<String> names) {
    this.forwardHeaders = names;
    return this;
  }

  public ProviderConfigBuilder maxCost(int maxCost) {
    this.maxCost = maxCost;
    return this;
  }

  public ProviderConfigBuilder quotas(Map<String, Quota> quotasByTier) {
    this.quotas = quotasByTier;
    return this;
  }

  private ProviderIntake intake;

  public ProviderConfigBuilder request(ProviderRequest request) {
    this.request = request;
    return this;
  }

  public ProviderConfigBuilder endpoints(ProviderEndpoints endpoints) {
    this.endpoints = endpoints;
    return this;
  }

  public ProviderConfigBuilder intake(ProviderIntake intake) {
    this.intake = intake;
    return this;
  }

  public ProviderConfig build() {
    return new ProviderConfig(url, rate, maxInFlight, timeout, onRedisDown, false,
        forwardHeaders, maxCost, quotas, null, null, request, endpoints, intake);
  }
}
