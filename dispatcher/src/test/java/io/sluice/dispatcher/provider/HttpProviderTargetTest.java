package io.sluice.dispatcher.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  @DisplayName("an endpoint with a query: the event's path goes before it, and the queries are joined (issue 33)")
  void endpointWithAQuery() {
    URI withQuery = URI.create("https://hooks.acme.example/in?k=1");
    assertEquals(URI.create("https://hooks.acme.example/in/orders/7?k=1"),
        HttpProvider.target(withQuery, "orders/7"));
    assertEquals(URI.create("https://hooks.acme.example/in/orders/7?k=1&x=2"),
        HttpProvider.target(withQuery, "orders/7?x=2"));
    assertEquals(URI.create("https://hooks.acme.example/in?k=1&x=2"),
        HttpProvider.target(withQuery, "?x=2"));
  }

  @Test
  @DisplayName("a path can never move the call to another host, however it is written")
  void neverAnotherHost() {
    URI bare = URI.create("http://api.example:8081");
    for (String hostile : new String[] {"@evil.example/x", ":9999/x", "//evil.example/x",
        "/../../x", "http://evil.example/x", "/:9999/x"}) {
      try {
        URI target = HttpProvider.target(bare, hostile);
        assertEquals("api.example", target.getHost(), hostile);
        assertEquals(8081, target.getPort(), hostile);
        assertEquals("http", target.getScheme(), hostile);
      } catch (IllegalArgumentException refused) {
        assertTrue(refused.getMessage().contains("'path'") || refused.getMessage().contains("leaves"), hostile);
      }
    }
  }

  @Test
  @DisplayName("the provider refuses exactly the paths the gate refuses: one rule, RelativePath")
  void sameRuleAsTheGate() {
    for (String refused : new String[] {"a#b#c", "orders#top", "./a", "a/./b", "a/..;/admin", "a/%2e/b",
        "a%2", "a\r\nHost: evil", "café", "../x", "//h/x", "x:y"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> HttpProvider.target(base, refused), refused);
      assertTrue(e.getMessage().startsWith("field 'path' "), e.getMessage());
    }
    assertEquals(URI.create("http://api.example:8081/hooks/.well-known/x?next=./y"),
        HttpProvider.target(base, ".well-known/x?next=./y"));
  }
}
