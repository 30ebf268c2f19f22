package io.sluice.dispatcher.provider;

import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderRequest;
import io.sluice.config.Rate;
import io.sluice.config.RedisDownPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Provider configurations for tests of the HTTP provider. */
public final class ProviderConfigs {
  private ProviderConfigs() {}

  /** A provider at {@code url} making calls as {@code request} says, forwarding {@code forward}. */
  public static ProviderConfig http(URI url, List<String> forward, ProviderRequest request) {
    return new ProviderConfig(url, new Rate(10), 4, Duration.ofSeconds(5), RedisDownPolicy.LOCAL,
        false, forward, 100, Map.of(), null, request);
  }

  public static ProviderConfig http(URI url, ProviderRequest request) {
    return http(url, List.of(), request);
  }
}
