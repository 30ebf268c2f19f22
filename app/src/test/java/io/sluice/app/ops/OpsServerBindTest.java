package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ops server listens where http.bind says: by default on loopback only, so another host
 * cannot reach it through this host's network address; on 0.0.0.0, through every interface.
 */
class OpsServerBindTest {
  private final Health health = new Health(List.of(), Map.of());

  @Test
  void shouldListenOnLoopbackOnlyByDefault() throws Exception {
    String bind = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          p: { url: "http://localhost:1", rate: 1/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of()).http().bind();
    try (OpsServer server = OpsServer.start(bind, 0, new MetricRegistry(), health)) {
      assertTrue(connects(InetAddress.getLoopbackAddress(), server.port()));
      Optional<InetAddress> external = nonLoopbackAddress();
      assumeTrue(external.isPresent(), "this host has no non-loopback IPv4 address");
      assertEquals(false, connects(external.get(), server.port()),
          "reachable through " + external.get());
    }
  }

  @Test
  void shouldListenOnEveryInterfaceWhenBoundToTheWildcard() throws Exception {
    try (OpsServer server = OpsServer.start("0.0.0.0", 0, new MetricRegistry(), health)) {
      assertTrue(connects(InetAddress.getLoopbackAddress(), server.port()));
      Optional<InetAddress> external = nonLoopbackAddress();
      assumeTrue(external.isPresent(), "this host has no non-loopback IPv4 address");
      assertTrue(connects(external.get(), server.port()), "not reachable through " + external.get());
    }
  }

  @Test
  void shouldNameHttpBindWhenTheAddressIsNotThisHosts() {
    UncheckedIOException e = assertThrows(UncheckedIOException.class,
        () -> OpsServer.start("no-such-host.invalid", 0, new MetricRegistry(), health).close());
    assertTrue(e.getMessage().contains("http.bind"), e.getMessage());

    // An address of another host resolves but cannot be bound.
    UncheckedIOException foreign = assertThrows(UncheckedIOException.class,
        () -> OpsServer.start("192.0.2.254", 0, new MetricRegistry(), health).close());
    assertTrue(foreign.getMessage().contains("http.bind"), foreign.getMessage());
  }

  private static boolean connects(InetAddress address, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<InetAddress> nonLoopbackAddress() throws Exception {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nic.isUp() && !nic.isLoopback()) {
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
            return Optional.of(a);
          }
        }
      }
    }
    return Optional.empty();
  }
}
