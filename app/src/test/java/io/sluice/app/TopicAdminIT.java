package io.sluice.app;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code topics create|check} on a real broker, for the regate topic the gate reads beside inbound. */
@ExtendWith(RealServers.class)
class TopicAdminIT {
  @TempDir
  Path dir;

  @Test
  void shouldCreateRegateWithInboundsPartitionsAndReportItMissing(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = config(kafka, redis);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    try (Admin admin = admin(kafka); TopicAdmin topicAdmin = new TopicAdmin(config)) {
      // A deployment from before regate: inbound exists with 3 partitions.
      admin.createTopics(List.of(new NewTopic(topics.inbound(), 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
      assertTrue(topicAdmin.missing().contains(topics.regate()), "check names regate as missing");

      List<String> created = topicAdmin.create(6, (short) 1);

      assertTrue(created.contains(topics.regate()), created.toString());
      // The broker's topic list catches up with the controller a moment after creation.
      Await.until("topics check finds every topic", java.time.Duration.ofSeconds(30), () -> {
        try {
          return topicAdmin.missing().isEmpty();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      var described = admin.describeTopics(List.of(topics.regate(), topics.ready())).allTopicNames()
          .get(30, TimeUnit.SECONDS);
      assertEquals(3, described.get(topics.regate()).partitions().size(), "as inbound, not --partitions");
      assertEquals(6, described.get(topics.ready()).partitions().size());
    }
  }

  @Test
  @org.junit.jupiter.api.DisplayName("a deployment from before ready.high: a role's start creates it with ready's partitions, once")
  void shouldCreateReadyHighAtStartBesideAnExistingReady(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = config(kafka, redis);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    try (Admin admin = admin(kafka); TopicAdmin topicAdmin = new TopicAdmin(config)) {
      // Every topic of the version before, ready with 3 partitions.
      List<NewTopic> before = topics.all().stream().filter(t -> !t.equals(topics.readyHigh()))
          .map(t -> new NewTopic(t, t.equals(topics.operator()) ? 1 : 3, (short) 1)).toList();
      admin.createTopics(before).all().get(30, TimeUnit.SECONDS);
      assertEquals(java.util.Set.of(topics.readyHigh()), topicAdmin.missing(), "the new version needs it");

      assertEquals(List.of(topics.readyHigh()), topicAdmin.createAddedAtStart());
      assertEquals(List.of(), topicAdmin.createAddedAtStart(), "once");

      var described = admin.describeTopics(List.of(topics.readyHigh())).allTopicNames()
          .get(30, TimeUnit.SECONDS);
      assertEquals(3, described.get(topics.readyHigh()).partitions().size(), "as ready");
      var retention = admin.describeConfigs(List.of(new org.apache.kafka.common.config.ConfigResource(
          org.apache.kafka.common.config.ConfigResource.Type.TOPIC, topics.readyHigh()))).all()
          .get(30, TimeUnit.SECONDS).values().iterator().next().get("retention.ms").value();
      assertEquals(String.valueOf(Topics.WORK_RETENTION.toMillis()), retention, "a work topic's");
    }
  }

  /** A config of its own topic prefix on {@code kafka}. */
  private SluiceConfig config(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    return AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
        URI.create("http://127.0.0.1:1/"), Map.of()).load();
  }

  private static Admin admin(KafkaBroker kafka) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
  }
}
