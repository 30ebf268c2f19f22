package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.RealServers;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice pause} and {@code sluice resume} against a real redis-server (no Kafka needed). */
@ExtendWith(RealServers.class)
class PauseCliIT {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;
  private static String redisUri;
  @TempDir Path dir;
  private AppConfigFile config;

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    redisUri = shared.uri();
    client = RedisClient.create(redisUri);
    redis = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    redis.close();
    client.shutdown();
  }

  @BeforeEach
  void writeConfig(KafkaBroker kafka) {
    // A change is written to the operator topic first, then to Redis: the broker is needed.
    config = AppConfigFile.write(dir, kafka.bootstrapServers(), redisUri, URI.create("http://127.0.0.1:1/"),
        Map.of());
    kafka.createTopics(Map.of(config.prefix() + "operator", 1));
  }

  /** The pauses are global: none may outlive its test, or another's events would be held. */
  @AfterEach
  void removeAll() {
    redis.sync().del(PauseStore.KEY);
  }

  private CliRun sluice(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--config";
    all[args.length + 1] = config.file().toString();
    return CliRun.of(all);
  }

  private Map<String, String> stored() {
    Map<String, String> pauses = new java.util.HashMap<>(redis.sync().hgetall(PauseStore.KEY));
    pauses.remove(PauseStore.MARKER); // the cache's own marker (CacheKeeper), not a pause
    return pauses;
  }

  @Test
  @DisplayName("pause provider P writes who, when and why; resume provider P removes it")
  void pauseAndResumeAProvider() {
    String p = config.provider();
    CliRun paused = sluice("pause", "provider", p, "--reason", "partner 500s\n(ticket 12)");
    assertEquals(0, paused.exitCode(), paused.output());
    assertTrue(paused.out().contains("paused provider " + p + " (by "), paused.out());
    String value = stored().get(p + "/*");
    assertTrue(value != null && value.contains("\"reason\":\"partner 500s (ticket 12)\""), value);
    assertTrue(value.contains("\"by\":\"" + System.getProperty("user.name") + "@"), value);

    CliRun resumed = sluice("resume", "provider", p);
    assertEquals(0, resumed.exitCode(), resumed.output());
    assertEquals("resumed provider " + p, resumed.out().strip());
    assertEquals(Map.of(), stored());
    CliRun again = sluice("resume", "provider", p);
    assertEquals(0, again.exitCode(), "resuming what is not paused is done already");
    assertTrue(again.out().contains("was not paused"), again.out());
  }

  @Test
  @DisplayName("pause provider P --endpoint T and pause tenant T --provider P are the same pause")
  void endpointAndTenantOnProvider() {
    String p = config.provider();
    assertEquals(0, sluice("pause", "provider", p, "--endpoint", "acme").exitCode());
    assertEquals(0, sluice("pause", "tenant", "globex").exitCode());
    assertEquals(java.util.Set.of(p + "/acme", "*/globex"), stored().keySet());
    assertEquals(0, sluice("resume", "tenant", "acme", "--provider", p).exitCode());
    assertEquals(java.util.Set.of("*/globex"), stored().keySet());
  }

  @Test
  @DisplayName("an unknown provider, an invalid tenant, a reason too long: exit 2, nothing written")
  void refused() {
    CliRun unknown = sluice("pause", "provider", "nope");
    assertEquals(2, unknown.exitCode(), unknown.output());
    assertTrue(unknown.err().contains("no provider \"nope\" is configured"), unknown.err());
    CliRun badTenant = sluice("pause", "tenant", "a/b\u001b[2J");
    assertEquals(2, badTenant.exitCode(), badTenant.output());
    assertTrue(!badTenant.err().contains("\u001b"), "the name is shown cleaned");
    CliRun tooLong = sluice("pause", "provider", config.provider(), "--reason", "x".repeat(201));
    assertEquals(2, tooLong.exitCode(), tooLong.output());
    assertEquals(2, sluice("pause").exitCode(), "pause what?");
    assertEquals(2, sluice("status", "--provider", "nope").exitCode());
    assertEquals(2, sluice("status", "--tenant", "a b").exitCode());
    assertEquals(Map.of(), stored());
  }
}
