package io.sluice.app;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * A YAML config file for one test, as a user would write it: the given Kafka and Redis, one HTTP
 * provider, and a topic prefix, gate application id, dispatcher group and provider name that no
 * other test uses (the servers are shared, and Redis keys are per provider name).
 *
 * @param file     where the config was written
 * @param prefix   the topic prefix, e.g. {@code app-1a2b3c4d.}
 * @param provider the provider's name
 */
public record AppConfigFile(Path file, String prefix, String provider) {

  /**
   * @param tenants tenant id to tier for the tenants the config names (others are free)
   */
  public static AppConfigFile write(Path dir, String bootstrap, String redisUri, URI providerUrl,
      Map<String, String> tenants) {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String prefix = "app-" + unique + ".";
    String provider = "partner-" + unique;
    StringBuilder yaml = new StringBuilder("""
        kafka: { bootstrap: "%s", topicPrefix: "%s" }
        redis: { uri: "%s" }
        ladder: [1s, 5s]
        maxAttempts: 5
        tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }
        defaultTier: free
        providers:
          %s:
            url: "%s"
            rate: 200/s
            maxInFlight: 16
            timeout: 5s
            quotas:
              enterprise: { capacity: 200, refill: 100/s }
              pro: { capacity: 200, refill: 100/s }
              free: { capacity: 200, refill: 100/s }
        gate: { applicationId: "%sgate" }
        dispatcher: { groupId: "%sdispatcher" }
        http: { port: 0 }
        """.formatted(bootstrap, prefix, redisUri, provider, providerUrl, prefix, prefix));
    if (!tenants.isEmpty()) {
      yaml.append("tenants:\n");
      tenants.forEach((tenant, tier) ->
          yaml.append("  ").append(tenant).append(": { tier: ").append(tier).append(" }\n"));
    }
    Path file = dir.resolve("sluice-" + unique + ".yaml");
    try {
      Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new AppConfigFile(file, prefix, provider);
  }

  /** The config as the CLI reads it (without environment overrides). */
  public SluiceConfig load() {
    return ConfigLoader.load(file, Map.of());
  }

  /** A well-formed event for this config's provider, as one JSON line. */
  public String event(String id, String tenant) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
        + "\",\"cost\":1,\"payload\":{\"n\":\"" + id + "\"}}";
  }
}
