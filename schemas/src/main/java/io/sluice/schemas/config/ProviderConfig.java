package io.sluice.schemas.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One rate-limited provider.
 *
 * @param url            base URL; events may add a relative path, never a host
 * @param rate           the leak rate across all dispatcher instances
 * @param maxInFlight    calls in flight at most, per dispatcher instance
 * @param timeout        per call
 * @param onRedisDown    policy while Redis does not answer
 * @param shadow         compute and count every decision, hold nothing back
 * @param forwardHeaders event attributes allowed through as request headers (case-insensitive)
 * @param maxCost        the largest cost an event may carry
 * @param quotas         each tier's bucket toward this provider, by tier name
 */
public record ProviderConfig(
    URI url,
    Rate rate,
    int maxInFlight,
    Duration timeout,
    RedisDownPolicy onRedisDown,
    boolean shadow,
    List<String> forwardHeaders,
    int maxCost,
    Map<String, Quota> quotas) {
  public ProviderConfig {
    forwardHeaders = forwardHeaders == null ? List.of() : List.copyOf(forwardHeaders);
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
  }
}
