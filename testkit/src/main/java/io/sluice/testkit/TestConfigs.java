package io.sluice.testkit;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.embedded.KafkaBroker;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/** Configurations for integration tests: a fresh topic prefix each, so tests never share topics. */
public final class TestConfigs {
  private TestConfigs() {}

  /** Parses {@code yaml} with the broker and Redis filled in and a unique prefix and app id. */
  public static SluiceConfig of(String yaml, KafkaBroker broker, String redisUri) {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_KAFKA__BOOTSTRAP", broker.bootstrapServers());
    env.put("SLUICE_KAFKA__TOPIC_PREFIX", "t" + unique + ".");
    env.put("SLUICE_REDIS__URI", redisUri);
    env.put("SLUICE_GATE__APPLICATION_ID", "gate-" + unique);
    return ConfigLoader.parse(yaml, env);
  }

  /** Creates every topic of the config: {@code partitions} for inbound, ready and delays, 1 for the rest. */
  public static Topics createTopics(SluiceConfig config, KafkaBroker broker, int partitions) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    broker.createTopics(topics.partitionCounts(partitions, 1));
    return topics;
  }
}
