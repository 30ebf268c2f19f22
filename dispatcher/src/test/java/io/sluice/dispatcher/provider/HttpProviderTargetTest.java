package io.sluice.dispatcher.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HttpProviderTargetTest {
  private final URI base = URI.create("http://api.example:8081/hooks");

  @Test
  @DisplayName("a relative path goes below the base path")
  void below() {
    assertEquals(URI.create("http://api.example:8081/hooks/orders/7?x=1"),
        HttpProvider.target(base, "orders/7?x=1"));
    assertEquals(URI.create("http://api.example:8081/hooks/orders"),
        HttpProvider.target(URI.create("http://api.example:8081/hooks/"), "/orders"));
  }

  @Test
  @DisplayName("no path, or only a query, stays on the base URL")
  void baseItself() {
    assertEquals(base, HttpProvider.target(base, null));
    assertEquals(URI.create("http://api.example:8081/hooks?a=b"), HttpProvider.target(base, "?a=b"));
  }

  @Test
  @DisplayName("a path can never move the call to another host, however it is written")
  void neverAnotherHost() {
    URI bare = URI.create("http://api.example:8081");
    for (String hostile : new String[] {"@evil.example/x", ":9999/x", "//evil.example/x",
        "/../../x", "http://evil.example/x"}) {
      URI target = HttpProvider.target(bare, hostile);
      assertEquals("api.example", target.getHost(), hostile);
      assertEquals(8081, target.getPort(), hostile);
      assertEquals("http", target.getScheme(), hostile);
    }
  }
}
