package io.sluice.redis;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ScriptOutputType;
import io.sluice.embedded.RedisBinaries;
import io.sluice.config.RedisConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code rediss://} against a real {@code redis-server} that speaks only TLS and requires a
 * password, with a certificate made for the test (openssl) and trusted through the JVM's trust
 * store properties, as README tells users to do. The server is the one the other tests run
 * ({@link RedisBinaries}: installed or bundled, both built with TLS).
 */
class RedisTlsIT {
  private static final String PASSWORD = "tls-S3cret-pw";
  private static Path dir;
  private static Process server;
  private static int port;
  private static String previousTrustStore;

  @BeforeAll
  static void startATlsOnlyServer() throws Exception {
    dir = Files.createTempDirectory("sluice-redis-tls-");
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", "key.pem", "-out", "cert.pem", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost");
    run("keytool", "-importcert", "-noprompt", "-alias", "redis", "-file", "cert.pem",
        "-keystore", "trust.p12", "-storetype", "PKCS12", "-storepass", "changeit");
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    server = new ProcessBuilder(RedisBinaries.server().toString(),
        "--port", "0", "--tls-port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
        "--tls-cert-file", "cert.pem", "--tls-key-file", "key.pem",
        "--tls-ca-cert-file", "cert.pem", "--tls-auth-clients", "no",
        "--requirepass", PASSWORD)
        .directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("redis.log").toFile()).start();
    previousTrustStore = System.getProperty("javax.net.ssl.trustStore");
    System.setProperty("javax.net.ssl.trustStore", dir.resolve("trust.p12").toString());
    System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
    System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    awaitTlsReady();
  }

  @AfterAll
  static void stop() throws Exception {
    if (previousTrustStore == null) {
      System.clearProperty("javax.net.ssl.trustStore");
    } else {
      System.setProperty("javax.net.ssl.trustStore", previousTrustStore);
    }
    System.clearProperty("javax.net.ssl.trustStorePassword");
    System.clearProperty("javax.net.ssl.trustStoreType");
    if (server != null) {
      server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  @Test
  void shouldRunScriptsOverTlsWithThePassword() throws Exception {
    try (RedisConnection redis = RedisConnection.open(new RedisConfig(uri(PASSWORD)))) {
      assertEquals(3L, (Long) redis.commands().eval("return 3", ScriptOutputType.INTEGER)
          .toCompletableFuture().get(5, TimeUnit.SECONDS));
    }
  }

  @Test
  void shouldRefuseAWrongPasswordOverTlsWithoutShowingIt() {
    RedisConnection.CredentialsRefused e = assertThrows(RedisConnection.CredentialsRefused.class,
        () -> RedisConnection.open(new RedisConfig(uri("wrong-S3cret"))).close());

    assertTrue(e.getMessage().contains("rediss://***@127.0.0.1:" + port), e.getMessage());
    assertFalse(e.getMessage().contains("S3cret"), e.getMessage());
  }

  @Test
  void shouldNotReachATlsPortWithoutTls() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> RedisConnection
        .open(new RedisConfig("redis://:" + PASSWORD + "@127.0.0.1:" + port)).close());

    assertTrue(e.getMessage().contains("redis.uri"), e.getMessage());
    assertFalse(e.getMessage().contains(PASSWORD), e.getMessage());
  }

  private static String uri(String password) {
    return "rediss://:" + password + "@127.0.0.1:" + port;
  }

  /** Until a TLS connection with the password answers, at most 10 s. */
  private static void awaitTlsReady() throws Exception {
    try {
      // Observed: why the last connection failed ("" once one answered).
      Await.until("a TLS connection with the password to answer", Duration.ofSeconds(10), () -> {
        if (!server.isAlive()) {
          throw new AssertionError("redis-server with TLS exited");
        }
        try (RedisConnection redis = RedisConnection.open(new RedisConfig(uri(PASSWORD)))) {
          return "";
        } catch (IllegalStateException e) {
          return e.getMessage();
        }
      }, String::isEmpty);
    } catch (AssertionError e) {
      throw new IllegalStateException("redis-server with TLS did not come up: " + e.getMessage()
          + "\n" + Files.readString(dir.resolve("redis.log")), e);
    }
  }

  private static void run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(dir.resolve(command[0] + ".log").toFile())
        .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed: "
          + Files.readString(dir.resolve(command[0] + ".log")));
    }
  }
}
