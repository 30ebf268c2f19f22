package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderRequest;
import java.net.URI;
import java.util.List;

/** Provider configurations for tests of the HTTP provider. */
public final class ProviderConfigs {
  private ProviderConfigs() {}

  /** A provider at {@code url} making calls as {@code request} says, forwarding {@code forward}. */
  public static ProviderConfig http(URI url, List<String> forward, ProviderRequest request) {
    return providerAt(url).forwardHeaders(forward).request(request).build();
  }

  public static ProviderConfig http(URI url, ProviderRequest request) {
    return http(url, List.of(), request);
  }
}
