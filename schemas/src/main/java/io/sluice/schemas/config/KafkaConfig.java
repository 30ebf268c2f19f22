package io.sluice.schemas.config;

/**
 * @param bootstrap   bootstrap servers
 * @param topicPrefix prefix of every Sluice topic, default {@code sluice.}
 */
public record KafkaConfig(String bootstrap, String topicPrefix) {}
