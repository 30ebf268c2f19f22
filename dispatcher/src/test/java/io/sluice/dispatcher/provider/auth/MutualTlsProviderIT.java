package io.sluice.dispatcher.provider.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.ProviderTls;
import io.sluice.config.Secret;
import io.sluice.config.SluiceConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS per provider: against an HTTPS server that requires a client certificate and
 * presents a self-signed one of its own, a provider with its {@code tls:} key store and trust
 * store is answered; one without its key store, or trusting only the JVM's defaults, is not.
 * The stores are made with the JDK's keytool.
 */
class MutualTlsProviderIT {
  private static final String PASSWORD = "st0re-pa55word";
  @TempDir
  static Path dir;

  @BeforeAll
  static void makeStores() throws Exception {
    keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1", "-validity", "2",
        "-keystore", "server.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool("-genkeypair", "-alias", "client", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=sluice", "-validity", "2",
        "-keystore", "client.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool("-exportcert", "-alias", "server", "-keystore", "server.p12", "-storepass", PASSWORD,
        "-file", "server.crt");
    keytool("-exportcert", "-alias", "client", "-keystore", "client.p12", "-storepass", PASSWORD,
        "-file", "client.crt");
    keytool("-importcert", "-noprompt", "-alias", "server", "-file", "server.crt",
        "-keystore", "client-trust.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool("-importcert", "-noprompt", "-alias", "client", "-file", "client.crt",
        "-keystore", "server-trust.p12", "-storetype", "PKCS12", "-storepass", PASSWORD);
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
  }

  private static HttpsServer server() throws Exception {
    SSLContext context = TlsContexts.of(new ProviderTls(dir.resolve("server.p12"),
        Secret.literal(PASSWORD), dir.resolve("server-trust.p12"), Secret.literal(PASSWORD)));
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters params) {
        SSLParameters p = context.getDefaultSSLParameters();
        p.setNeedClientAuth(true);
        params.setSSLParameters(p);
      }
    });
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
    return server;
  }

  private static SluiceConfig config(int port, String tls) {
    return ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        providers:
          partner:
            url: https://127.0.0.1:%d/hooks
            rate: 10/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(port) + tls.indent(4), Map.of("STORE_PASSWORD", PASSWORD));
  }

  private static ProviderResult call(SluiceConfig config) throws Exception {
    try (HttpProvider http = HttpProvider.of("partner", config.providers().get("partner"))) {
      return http.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1))
          .toCompletableFuture().get();
    }
  }

  @Test
  void shouldBeAnsweredWithItsClientCertificateAndItsTrustStore() throws Exception {
    HttpsServer server = server();
    try {
      int port = server.getAddress().getPort();
      String trust = "trustStore: " + dir.resolve("client-trust.p12")
          + "\ntrustStorePassword: \"${env:STORE_PASSWORD}\"\n";
      ProviderResult both = call(config(port, "tls:\n" + ("keyStore: " + dir.resolve("client.p12")
          + "\nkeyStorePassword: \"${env:STORE_PASSWORD}\"\n" + trust).indent(2)));
      ProviderResult noClientCert = call(config(port, "tls:\n" + trust.indent(2)));
      ProviderResult defaultTrust = call(config(port, ""));

      assertEquals(204, assertInstanceOf(ProviderResult.Answered.class, both).status());
      assertInstanceOf(ProviderResult.ConnectFailed.class, noClientCert, noClientCert::toString);
      assertInstanceOf(ProviderResult.ConnectFailed.class, defaultTrust, defaultTrust::toString);
      assertFalse(noClientCert.toString().contains(PASSWORD));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void shouldStopStartUpNamingAStoreThatIsMissingOrWhosePasswordIsWrong() {
    String m = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        providers:
          partner:
            url: https://127.0.0.1:1/hooks
            rate: 10/s
            quotas: { std: { capacity: 10, refill: 1/s } }
            tls:
              keyStore: %s
              keyStorePassword: wrong-password-1
              trustStore: %s
              trustStorePassword: "${env:STORE_PASSWORD}"
        """.formatted(dir.resolve("client.p12"), dir.resolve("absent.p12")),
        Map.of("STORE_PASSWORD", PASSWORD))).getMessage();

    assertTrue(m.contains("providers.partner.tls.keyStore: cannot read " + dir.resolve("client.p12")
        + " as a PKCS#12 store with its password"), m);
    assertTrue(m.contains("providers.partner.tls.trustStore: the file " + dir.resolve("absent.p12")
        + " does not exist"), m);
    assertFalse(m.contains("wrong-password-1"), m);
  }
}
