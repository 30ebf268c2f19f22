package io.sluice.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.app.admin.TenantRoutes;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.embedded.KafkaBroker;
import io.sluice.redis.operator.OperatorJournal;
import io.sluice.redis.tenants.EndpointSecrets;
import io.sluice.redis.tenants.StoredTenant;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;

/**
 * An endpoint's signing secret is made, written to the operator topic and Redis, rotated, and
 * shown as status shows a tenant: the clear secret is in none of the topic's raw bytes, Redis's
 * value, the log lines of the whole run, or the status view (issue 33). Its own keys: a real
 * broker and redis-server.
 */
@ExtendWith(RealServers.class)
class EndpointSecretNeverInTheClearIT {
  private static final String SEAL = Base64.getEncoder().encodeToString(new byte[] {
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
      26, 27, 28, 29, 30, 31, 32});

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  @Test
  void aMadeAndARotatedSecretAreNeitherInTheTopicNorRedisNorTheLogsNorStatus(KafkaBroker kafka,
      RedisServerProcess redis) {
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_KAFKA__BOOTSTRAP", kafka.bootstrapServers());
    env.put("SLUICE_KAFKA__TOPIC_PREFIX", "s" + UUID.randomUUID().toString().substring(0, 8) + ".");
    env.put("SLUICE_REDIS__URI", redis.uri());
    env.put("SEAL", SEAL);
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        secrets: { sealingKeys: { k1: "${env:SEAL}" } }
        providers:
          hooks:
            endpoints: perTenant
            rate: 2/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """, env);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    kafka.createTopics(topics.partitionCounts(1, 1));
    String tenant = "acme-" + UUID.randomUUID().toString().substring(0, 8);
    TenantRecord given = new TenantRecord("std", Map.of(), false, Map.of("hooks",
        new TenantEndpoint(URI.create("https://hooks.acme.example/in"))));

    List<String> secrets = new ArrayList<>();
    String logged;
    String status;
    RedisClient client = RedisClient.create(redis.uri());
    try (CapturedLines captured = new CapturedLines(Logger.ROOT_LOGGER_NAME, Level.DEBUG);
        StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        OperatorJournal.Kafka journal = OperatorJournal.open(config)) {
      TenantRegistry registry = new TenantRegistry(connection.async(), journal);
      EndpointSecrets.Settled made = EndpointSecrets.settle(config, null, given,
          EndpointSecrets::fresh);
      secrets.add(made.made().get("hooks"));
      await(registry.put(tenant, made.record(), "EndpointSecretNeverInTheClearIT"));
      EndpointSecrets.Rotated rotated = EndpointSecrets.rotate(config, made.record(), "hooks",
          EndpointSecrets.fresh(), System.currentTimeMillis(), Duration.ofHours(1));
      secrets.add(rotated.secret());
      StoredTenant stored = await(registry.put(tenant, rotated.record(), "EndpointSecretNeverInTheClearIT"));
      assertEquals(List.of(secrets.get(1), secrets.get(0)), EndpointSecrets.opened(config, stored.record(), "hooks",
          System.currentTimeMillis()), "the write-token view opens both, the new first");
      status = TenantRoutes.view(config, tenant, Optional.of(stored)).toString()
          + TenantRoutes.changes(await(registry.audit(tenant))).toString();
      String cached = connection.sync().hget(TenantRegistry.KEY, tenant);
      assertTrue(cached.contains("\"sealed\":\"k1:"), "Redis holds it sealed");
      forbidden(secrets).forEach(f -> assertFalse(cached.contains(f), "Redis holds it in the clear"));
      logged = captured.json();
    } finally {
      client.shutdown();
    }

    String topic = rawTopic(kafka, topics.operator());
    assertTrue(topic.contains("\"sealed\":\"k1:"), "the topic holds the record, sealed");
    for (String f : forbidden(secrets)) {
      assertFalse(topic.contains(f), "the operator topic's bytes hold a secret in the clear");
      assertFalse(logged.contains(f), "a log line holds a secret");
      assertFalse(status.contains(f), "status shows a secret");
    }
    assertFalse(status.contains("sealed"), "status shows not even the ciphertext: " + status);
  }

  /** Each secret as written, its key alone, and its key as hex: none may appear. */
  private static List<String> forbidden(List<String> secrets) {
    List<String> out = new ArrayList<>();
    for (String s : secrets) {
      out.add(s);
      out.add(s.substring("whsec_".length()));
      out.add(java.util.HexFormat.of().formatHex(Base64.getDecoder().decode(s.substring(6))));
    }
    return out;
  }

  /** Every key and value of the topic, as raw bytes read as Latin-1 (no decoding hides a byte). */
  private static String rawTopic(KafkaBroker kafka, String topic) {
    StringBuilder all = new StringBuilder();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition p = new TopicPartition(topic, 0);
      consumer.assign(List.of(p));
      consumer.seekToBeginning(List.of(p));
      long end = consumer.endOffsets(List.of(p)).get(p);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      int read = 0;
      while (consumer.position(p) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          read++;
          all.append(new String(r.key(), StandardCharsets.ISO_8859_1)).append(' ')
              .append(r.value() == null ? "" : new String(r.value(), StandardCharsets.ISO_8859_1))
              .append('\n');
        }
      }
      assertEquals(2, read, "both writes read back from the topic");
    }
    return all.toString();
  }
}
