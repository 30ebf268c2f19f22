package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code deploy/sluice.yaml} and {@code docker-compose.yml} from rotting on a machine without
 * Docker: the config must load through the real {@link ConfigLoader}, and every address in it must
 * name something the compose file actually provides.
 */
class DeployConfigTest {
  private static final String MOUNTED_CONFIG = "/config/sluice.yaml";

  private static SluiceConfig config;
  private static JsonNode services;

  @BeforeAll
  static void load() throws IOException {
    Path root = repositoryRoot();
    config = ConfigLoader.load(root.resolve("deploy/sluice.yaml"), Map.of());
    services = new YAMLMapper().readTree(root.resolve("docker-compose.yml").toFile()).get("services");
  }

  /** Tests run in the module directory; the deploy files live at the repository root. */
  static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("deploy/sluice.yaml")) && Files.exists(dir.resolve("docker-compose.yml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no deploy/sluice.yaml above " + Path.of("").toAbsolutePath());
  }

  private static List<String> strings(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node != null) {
      node.forEach(n -> out.add(n.asText()));
    }
    return out;
  }

  @Test
  void shouldPointKafkaAtTheListenerTheBrokerAdvertisesToOtherContainers() {
    String advertised = services.get("kafka").get("environment").get("KAFKA_ADVERTISED_LISTENERS").asText();

    assertTrue(advertised.contains("://" + config.kafka().bootstrap()),
        "bootstrap " + config.kafka().bootstrap() + " is not among " + advertised);
    assertTrue(config.kafka().bootstrap().startsWith("kafka:"), "containers reach the broker as 'kafka'");
  }

  @Test
  void shouldConfigureTheBrokerForExactlyOnceOnASingleNode() {
    JsonNode env = services.get("kafka").get("environment");

    assertEquals(1, env.get("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR").asInt());
    assertEquals(1, env.get("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR").asInt());
    assertEquals(1, env.get("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR").asInt());
    assertEquals("broker,controller", env.get("KAFKA_PROCESS_ROLES").asText());
  }

  @Test
  void shouldPointRedisAtTheRedisService() {
    URI uri = URI.create(config.redis().uri());

    assertTrue(services.has(uri.getHost()), "no compose service " + uri.getHost());
    assertEquals(6379, uri.getPort());
  }

  @Test
  void shouldPointEveryProviderAtAComposeService() {
    config.providers().forEach((name, provider) -> {
      String host = provider.url().getHost();
      assertTrue(services.has(host), "provider " + name + " calls " + host + ", which is no compose service");
    });
  }

  @Test
  void shouldPublishTheOpsPortOfTheConfig() {
    List<String> ports = strings(services.get("sluice").get("ports"));

    assertTrue(ports.stream().anyMatch(p -> p.endsWith(":" + config.http().port())),
        "sluice publishes " + ports + ", the config serves on " + config.http().port());
  }

  @Test
  void shouldPublishEveryPortOnTheHostsLoopbackOnly() {
    // Issue 33: Redis has no password and Kafka no authentication here; published on every
    // interface, anyone reaching the host could read and write both (docs/security.md).
    services.fields().forEachRemaining(service -> {
      for (String port : strings(service.getValue().get("ports"))) {
        assertTrue(port.startsWith("127.0.0.1:"), service.getKey() + " publishes " + port
            + " beyond the host's loopback");
      }
    });
  }

  @Test
  void shouldServeTheOpsPortOnEveryInterfaceSoThatThePublishedPortReachesIt() {
    // Docker forwards a published port to the container's own interface, not its loopback.
    assertEquals("0.0.0.0", config.http().bind());
  }

  @Test
  void shouldMountThisConfigWhereTheSluiceCommandsReadIt() {
    for (String service : List.of("topics", "sluice")) {
      assertTrue(strings(services.get(service).get("volumes")).contains("./deploy/sluice.yaml:" + MOUNTED_CONFIG + ":ro"),
          service + " mounts the config");
      List<String> command = strings(services.get(service).get("command"));
      assertEquals(MOUNTED_CONFIG, command.get(command.indexOf("--config") + 1), service + " reads it");
    }
  }
}
