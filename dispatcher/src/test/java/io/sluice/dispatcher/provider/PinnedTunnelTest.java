package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.sluice.config.ProviderConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A guarded provider's calls go through its {@link PinnedTunnel}, to the address pinned for the
 * endpoint's host and no other; the client never resolves the name itself. The endpoints' names
 * here exist in no DNS: only the pin can take a call anywhere.
 */
class PinnedTunnelTest {
  private final List<String> hosts = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private PinnedTunnel tunnel;
  private HttpProvider provider;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      hosts.add(exchange.getRequestHeaders().getFirst("Host") + " " + exchange.getRequestURI());
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    server.start();
    tunnel = new PinnedTunnel();
    ProviderConfig config =
        providerAt("http://unused.invalid/").timeout(Duration.ofSeconds(2)).build();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER).proxy(tunnel.proxy())
        .connectTimeout(Duration.ofSeconds(2)).build();
    provider = HttpProvider.pinned(config, client, tunnel);
  }

  @AfterEach
  void stop() {
    provider.close();
    server.stop(0);
  }

  private ProviderResult call(HttpProvider endpoint) throws Exception {
    return endpoint.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private URI url(String host, String path) {
    return URI.create("http://" + host + ":" + server.getAddress().getPort() + path);
  }

  @Test
  @DisplayName("a call goes to the pinned address, its Host the endpoint's name and its path and query kept")
  void pinnedAddressNameKept() throws Exception {
    HttpProvider acme = provider.toward(url("hooks.acme.invalid", "/in?k=1"));
    acme.pin(InetAddress.getLoopbackAddress());

    ProviderResult result = call(acme);

    assertEquals(204, assertInstanceOf(ProviderResult.Answered.class, result, result.toString()).status());
    assertEquals(List.of("hooks.acme.invalid:" + server.getAddress().getPort() + " /in?k=1"), hosts);
  }

  @Test
  @DisplayName("closing twice is quiet: the outside check's stop logged 'closing the stopped dispatcher failed (ClosedSelectorException)'")
  void closingTwiceThrowsNothing() {
    provider.close();

    assertDoesNotThrow(provider::close);
  }

  @Test
  @DisplayName("a host nothing pinned is refused by the tunnel: the call fails and reaches no server")
  void unpinnedHostFailsClosed() throws Exception {
    ProviderResult result = call(provider.toward(url("localhost", "/in")));

    assertInstanceOf(ProviderResult.ConnectFailed.class, result, result.toString());
    assertEquals(List.of(), hosts);
  }

  @Test
  @DisplayName("plain http: one request per tunnelled connection, so calls in a row each arrive whole")
  void oneRequestPerPlainConnection() throws Exception {
    HttpProvider acme = provider.toward(url("hooks.acme.invalid", "/in"));
    acme.pin(InetAddress.getLoopbackAddress());
    for (int i = 0; i < 5; i++) {
      ProviderResult result = call(acme);
      assertInstanceOf(ProviderResult.Answered.class, result, "call " + i + ": " + result);
    }
    assertEquals(5, hosts.size());
    assertTrue(hosts.stream().allMatch(h -> h.startsWith("hooks.acme.invalid:")), hosts.toString());
  }
}
