package io.sluice.dispatcher.hostile;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;
import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderTls;
import io.sluice.config.Secret;
import io.sluice.dispatcher.endpoint.EndpointLookups;
import io.sluice.dispatcher.endpoint.GuardedEndpoint;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.PinnedTunnel;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.TricklingServer;
import io.sluice.dispatcher.provider.auth.TlsContexts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hostile tenant against the dispatcher's call path (issue 33), on real local sockets and the
 * JDK's own client: the tenant controls its endpoint's DNS answers, its server's pace and its
 * certificate. The network is stood in for by {@link PinnedTunnel#routedBy}: the public address
 * the tenant's DNS gives the guard is routed to a loopback listener playing that public server,
 * while the JDK's own resolution of {@code localhost} (what an unpinned client connects to) is the
 * "internal service" no tenant may reach. The ops port's slow-loris test is
 * {@code OpsPortHeldTest} (app); the signing secret per endpoint is not built here.
 */
class HostileTenantIT {
  private static final String PASSWORD = "st0re-pa55word";
  private static final InetAddress PUBLIC = address(93, 184, 216, 34);
  @TempDir
  static Path dir;

  private final List<String> internalSaw = new CopyOnWriteArrayList<>();
  private final List<String> publicSaw = new CopyOnWriteArrayList<>();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void makeCertificate() throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "tenant-b", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=hooks.tenant-b.example", "-ext", "SAN=dns:hooks.tenant-b.example",
        "-validity", "2", "-keystore", "server.p12", "-storetype", "PKCS12", "-storepass", PASSWORD)
        .directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private static InetAddress address(int a, int b, int c, int d) {
    try {
      return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private HttpServer recording(List<String> saw) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("localhost"), 0), 0);
    server.createContext("/", exchange -> {
      saw.add(exchange.getRequestHeaders().getFirst("Host"));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    server.start();
    closing.add(() -> server.stop(0));
    return server;
  }

  private static ProviderConfig perTenant(Duration timeout) {
    return providerAt("http://unused.invalid/").timeout(timeout).build();
  }

  /** A guarded per-tenant provider as {@code HttpProvider.of} builds one, the network stood in for. */
  private HttpProvider pinnedProvider(Duration timeout, SSLContext tls,
      java.util.function.UnaryOperator<InetSocketAddress> network) {
    PinnedTunnel tunnel = PinnedTunnel.routedBy(network);
    HttpClient.Builder client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(timeout).proxy(tunnel.proxy());
    if (tls != null) {
      client.sslContext(tls);
    }
    HttpProvider provider = HttpProvider.pinned(perTenant(timeout), client.build(), tunnel);
    closing.add(provider);
    return provider;
  }

  private static ProviderResult call(GuardedEndpoint endpoint) throws Exception {
    return endpoint.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1))
        .toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  /** The tenant's DNS: a public address to every lookup the guard makes. */
  private static EndpointLookups tenantDns(AtomicInteger asked) {
    return new EndpointLookups(host -> {
      asked.incrementAndGet();
      return List.of(PUBLIC);
    }, Duration.ofSeconds(2));
  }

  @Test
  @DisplayName("DNS answers public to the check and loopback to the client's own lookup: the call reaches the checked address, never the loopback listener")
  void flippedAnswerNeverReachesLoopback() throws Exception {
    HttpServer internal = recording(internalSaw);
    HttpServer publicServer = recording(publicSaw);
    int port = internal.getAddress().getPort();
    URI endpoint = URI.create("http://localhost:" + port + "/hooks");
    AtomicInteger asked = new AtomicInteger();
    HttpProvider provider = pinnedProvider(Duration.ofSeconds(2), null, to ->
        to.getAddress().equals(PUBLIC) ? publicServer.getAddress() : to);

    ProviderResult result = call(new GuardedEndpoint(provider.toward(endpoint), "localhost", tenantDns(asked)));

    assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, result, result.toString()).status());
    assertEquals(List.of(), internalSaw, "the loopback listener was reached");
    assertEquals(List.of("localhost:" + port), publicSaw, "the checked address, the name kept in Host");
    assertEquals(1, asked.get(), "resolved once, by the guard");
  }

  @Test
  @DisplayName("control: the guard alone (the client resolving the name again, as before the tunnel) lets the same answer reach the loopback listener")
  void controlWithoutThePinTheFlipReachesLoopback() throws Exception {
    HttpServer internal = recording(internalSaw);
    URI endpoint = URI.create("http://localhost:" + internal.getAddress().getPort() + "/hooks");
    HttpProvider unpinned = new HttpProvider(perTenant(Duration.ofSeconds(2)),
        HttpProvider.defaultClient(Duration.ofSeconds(2)));
    closing.add(unpinned);

    ProviderResult result = call(new GuardedEndpoint(unpinned.toward(endpoint), "localhost",
        tenantDns(new AtomicInteger())));

    assertInstanceOf(ProviderResult.Answered.class, result, result.toString());
    assertEquals(1, internalSaw.size(), "this is the attack the pin stops: " + internalSaw);
  }

  @Test
  @DisplayName("HTTPS to a pinned address keeps the name: SNI and Host are the endpoint's, and a certificate for another name is refused")
  void tlsKeepsTheName() throws Exception {
    SSLContext serverTls = TlsContexts.of(new ProviderTls(dir.resolve("server.p12"),
        Secret.literal(PASSWORD), null, null));
    SSLContext clientTls = TlsContexts.of(new ProviderTls(null, null, dir.resolve("server.p12"),
        Secret.literal(PASSWORD)));
    List<String> sni = new CopyOnWriteArrayList<>();
    HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
    server.createContext("/", exchange -> {
      ((ExtendedSSLSession) ((HttpsExchange) exchange).getSSLSession()).getRequestedServerNames()
          .forEach(n -> sni.add(((SNIHostName) n).getAsciiName()));
      publicSaw.add(exchange.getRequestHeaders().getFirst("Host"));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
    closing.add(() -> server.stop(0));
    int port = server.getAddress().getPort();
    HttpProvider provider = pinnedProvider(Duration.ofSeconds(5), clientTls,
        to -> to.getAddress().equals(PUBLIC) ? server.getAddress() : to);

    ProviderResult tenantB = call(new GuardedEndpoint(provider.toward(URI.create(
        "https://hooks.tenant-b.example:" + port + "/in")), "hooks.tenant-b.example", tenantDns(new AtomicInteger())));
    ProviderResult tenantA = call(new GuardedEndpoint(provider.toward(URI.create(
        "https://hooks.tenant-a.example:" + port + "/in")), "hooks.tenant-a.example", tenantDns(new AtomicInteger())));

    assertEquals(204, assertInstanceOf(ProviderResult.Answered.class, tenantB, tenantB.toString()).status());
    assertEquals(List.of("hooks.tenant-b.example"), sni);
    assertEquals(List.of("hooks.tenant-b.example:" + port), publicSaw);
    assertInstanceOf(ProviderResult.ConnectFailed.class, tenantA,
        "tenant A's name pointed at tenant B's server: B's certificate does not name A");
  }

  @Test
  @DisplayName("a pinned endpoint that answers its headers and trickles its body ends as a timeout at the deadline")
  void tricklingBodyIsATimeout() throws Exception {
    TricklingServer trickling = new TricklingServer(50, 100);
    closing.add(trickling);
    HttpProvider provider = pinnedProvider(Duration.ofSeconds(1), null,
        to -> to.getAddress().equals(PUBLIC) ? trickling.address() : to);
    long start = System.nanoTime();

    ProviderResult result = call(new GuardedEndpoint(provider.toward(URI.create(
        "http://hooks.tenant-a.example/in")), "hooks.tenant-a.example", tenantDns(new AtomicInteger())));

    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertInstanceOf(ProviderResult.TimedOut.class, result, result.toString());
    assertTrue(millis < 1500, "ended after " + millis + " ms");
  }
}
