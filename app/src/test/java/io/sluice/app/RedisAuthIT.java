package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.sluice.app.ops.Health;
import io.sluice.app.ops.RedisReachability;
import io.sluice.embedded.RedisClusterProcess;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisConnection;
import io.sluice.config.ConfigLoader;
import io.sluice.config.RedisConfig;
import io.sluice.config.SluiceConfig;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Redis AUTH against real servers started with {@code requirepass}: a standalone server and the
 * local 3-node cluster. The right password connects and runs scripts; a wrong or missing one
 * fails at start-up with an error that names redis.uri and shows no password, and /health does
 * not show it either.
 */
class RedisAuthIT {
  /** Holds characters a URI must percent-encode, so decoding is tested too. */
  private static final String PASSWORD = "Pa:ss@w/rd s3cret-9f2";
  private static final String WRONG = "Wr0ng-pa55word-7c1";

  private static RedisServerProcess server;
  private static RedisClusterProcess cluster;

  @BeforeAll
  static void startServers() {
    server = RedisServerProcess.startWithPassword(PASSWORD);
    cluster = RedisClusterProcess.startWithPassword(PASSWORD);
  }

  @AfterAll
  static void stopServers() {
    if (cluster != null) {
      cluster.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void shouldRunScriptsOnAStandaloneServerWithTheRightPassword() throws Exception {
    SluiceConfig config = config(server.uriWithPassword());
    Preflight.redis(config);
    try (RedisConnection redis = RedisConnection.open(config.redis())) {
      assertEquals(7L, (Long) redis.commands().eval("return 7", ScriptOutputType.INTEGER)
          .toCompletableFuture().get(5, TimeUnit.SECONDS));
    }
  }

  @Test
  void shouldRunScriptsInEverySlotOfAClusterWithTheRightPassword() throws Exception {
    SluiceConfig config = config(cluster.uriWithPassword());
    Preflight.redis(config);
    try (RedisConnection redis = RedisConnection.open(config.redis())) {
      // Keys spread over the three masters: every node was authenticated, not only the seed.
      for (String key : List.of("a", "b", "c", "d", "e", "f", "g", "h")) {
        assertEquals(key, redis.commands().eval("return KEYS[1]", ScriptOutputType.VALUE,
            new String[] {key}).toCompletableFuture().get(5, TimeUnit.SECONDS));
      }
    }
  }

  @Test
  void shouldRefuseAWrongPasswordToAStandaloneServerNamingRedisUriWithoutThePassword() {
    String uri = "redis://sluice-user:" + WRONG + "@127.0.0.1:" + server.port();

    String error = startUpError(uri);

    assertTrue(error.contains("refused the credentials in redis.uri"), error);
    assertTrue(error.contains("redis://***@127.0.0.1:" + server.port()), error);
    assertNoSecretIn(error);
  }

  @Test
  void shouldRefuseAMissingPasswordToAStandaloneServer() {
    String error = startUpError("redis://127.0.0.1:" + server.port());

    assertTrue(error.contains("refused the credentials in redis.uri"), error);
    assertTrue(error.contains("NOAUTH"), error);
  }

  @Test
  void shouldRefuseAWrongPasswordToAClusterNamingRedisUriWithoutThePassword() {
    String uri = cluster.uri().replace("redis-cluster://", "redis-cluster://:" + WRONG + "@");

    String error = startUpError(uri);

    assertTrue(error.contains("refused the credentials in redis.uri"), error);
    assertTrue(error.contains("redis-cluster://***@127.0.0.1:"), error);
    assertNoSecretIn(error);
  }

  @Test
  void shouldKeepThePasswordOutOfHealthWhenRedisGoesAway() throws Exception {
    try (RedisServerProcess own = RedisServerProcess.startWithPassword(PASSWORD);
         RedisConnection redis = RedisConnection.open(new RedisConfig(own.uriWithPassword()))) {
      RedisReachability check = new RedisReachability(
          ((BaseRedisAsyncCommands<?, ?>) redis.commands())::ping, Duration.ofSeconds(1),
          Duration.ZERO, System::nanoTime);
      Health health = new Health(List.of(check), Map.of());
      assertTrue(health.report().up(), health.report().toJson());

      own.stop();
      String down = health.report().toJson();

      assertFalse(health.report().up(), down);
      assertNoSecretIn(down);
    }
  }

  /** Loads a config with this redis.uri and runs the start-up check, which must fail. */
  private static String startUpError(String uri) {
    SluiceConfig config = config(uri);
    Preflight.Unreachable e =
        assertThrows(Preflight.Unreachable.class, () -> Preflight.redis(config));
    assertThrows(RedisConnection.CredentialsRefused.class,
        () -> RedisConnection.open(config.redis()).close());
    return e.getMessage();
  }

  private static void assertNoSecretIn(String text) {
    for (String secret : List.of(PASSWORD, WRONG,
        URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8).replace("+", "%20"))) {
      assertFalse(text.contains(secret), text);
    }
  }

  private static SluiceConfig config(String redisUri) {
    return ConfigLoader.parse("""
        redis: { uri: "%s" }
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """.formatted(redisUri), Map.of());
  }
}
