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
    SluiceConfig config = AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
        URI.create("http://127.0.0.1:1/"), Map.of()).load();
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
         TopicAdmin topicAdmin = new TopicAdmin(config)) {
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
}
