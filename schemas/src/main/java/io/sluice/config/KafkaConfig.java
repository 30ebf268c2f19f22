package io.sluice.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * @param bootstrap   bootstrap servers
 * @param topicPrefix prefix of every Sluice topic, default {@code sluice.}
 * @param properties  Kafka client properties applied to every client Sluice builds (streams,
 *                    producers, consumers, admin), e.g. {@code security.protocol},
 *                    {@code sasl.jaas.config}, {@code ssl.truststore.location}; may hold
 *                    secrets (see {@link Secrets#isSecretProperty})
 * @param sweepHangingTransactions {@code kafka.hangingTransactions.sweep}: whether the roles end
 *                    hanging transactions on the topics they read (default true)
 */
public record KafkaConfig(String bootstrap, String topicPrefix, Map<String, String> properties,
    boolean sweepHangingTransactions) {
  /** The producers' {@code max.request.size} when the properties do not set it (Kafka's default). */
  public static final int DEFAULT_MAX_REQUEST_SIZE = 1_048_576;

  public KafkaConfig {
    properties = Map.copyOf(properties);
  }

  public KafkaConfig(String bootstrap, String topicPrefix, Map<String, String> properties) {
    this(bootstrap, topicPrefix, properties, true);
  }

  public KafkaConfig(String bootstrap, String topicPrefix) {
    this(bootstrap, topicPrefix, Map.of());
  }

  /**
   * The one place every Kafka client's configuration starts from: {@code bootstrap.servers} and
   * the user's {@link #properties}. Each client builder puts this first and its own settings
   * after, so the settings Sluice's correctness depends on (group ids, serdes, isolation,
   * transactions) are Sluice's; {@link ConfigLoader} refuses properties that would name them.
   */
  public Map<String, Object> clientProperties() {
    Map<String, Object> client = new LinkedHashMap<>(properties);
    client.put("bootstrap.servers", bootstrap);
    return client;
  }

  /**
   * {@link #clientProperties()} with a client's own settings on top, for builders that write
   * their settings as one {@code Map.of(...)}.
   */
  public Map<String, Object> clientProperties(Map<String, ?> own) {
    Map<String, Object> client = clientProperties();
    client.putAll(own);
    return client;
  }

  /** The producers' {@code max.request.size}, from the properties or Kafka's default. */
  public int maxRequestSize() {
    String set = properties.get("max.request.size");
    try {
      return set == null ? DEFAULT_MAX_REQUEST_SIZE : Integer.parseInt(set.trim());
    } catch (NumberFormatException e) {
      return DEFAULT_MAX_REQUEST_SIZE;
    }
  }

  @Override
  public String toString() {
    return "KafkaConfig[bootstrap=" + bootstrap + ", topicPrefix=" + topicPrefix + ", properties="
        + Secrets.properties(new TreeMap<>(properties)) + ", sweepHangingTransactions="
        + sweepHangingTransactions + "]";
  }
}
