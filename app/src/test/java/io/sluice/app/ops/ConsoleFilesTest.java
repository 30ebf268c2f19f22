package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The web console's files on the ops port: what is served, with which headers, and nothing else. */
class ConsoleFilesTest {
  private static OpsServer ops;

  @BeforeAll
  static void serve() {
    ops = OpsServer.start(new InetSocketAddress("127.0.0.1", 0),
        new PrometheusExposition(new MetricRegistry()), () -> null, () -> null,
        exchange -> {
          exchange.sendResponseHeaders(418, -1);
          exchange.close();
        });
  }

  @AfterAll
  static void stop() {
    ops.close();
  }

  /** The raw answer to a request line sent as written: no client normalises the path first. */
  private static String request(String method, String path) throws IOException {
    try (Socket s = new Socket("127.0.0.1", ops.port())) {
      OutputStream out = s.getOutputStream();
      out.write((method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static int status(String answer) {
    return Integer.parseInt(answer.substring(9, 12));
  }

  private static String header(String answer, String name) {
    return answer.lines().takeWhile(l -> !l.isEmpty())
        .filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
        .map(l -> l.substring(name.length() + 1).strip()).findFirst().orElse(null);
  }

  @Test
  @DisplayName("the page, its script and its style are served with a same-origin CSP, nosniff and no framing")
  void servesTheThreeFiles() throws IOException {
    for (String[] f : List.of(new String[] {"/console/", "text/html"},
        new String[] {"/console/index.html", "text/html"},
        new String[] {"/console/app.js", "text/javascript"},
        new String[] {"/console/app.css", "text/css"})) {
      String a = request("GET", f[0]);
      assertEquals(200, status(a), f[0]);
      assertTrue(header(a, "Content-Type").startsWith(f[1]), a);
      assertTrue(header(a, "Content-Security-Policy").startsWith("default-src 'self';"), a);
      assertTrue(header(a, "Content-Security-Policy").contains("frame-ancestors 'none'"), a);
      assertEquals("nosniff", header(a, "X-Content-Type-Options"));
      assertEquals("no-referrer", header(a, "Referrer-Policy"));
    }
    assertTrue(request("GET", "/console/").contains("<script src=\"app.js\" defer></script>"));
    String redirect = request("GET", "/console");
    assertEquals(308, status(redirect));
    assertEquals("/console/", header(redirect, "Location"));
  }

  @Test
  @DisplayName("nothing but the whitelisted names: no traversal, no other resource of the jar, no other method")
  void nothingElse() throws IOException {
    for (String path : List.of("/console/../pom.xml", "/console/..%2fapp.js", "/console/%2e%2e/",
        "/console/%2e%2e/admin/status", "/console/ConsoleFiles.class", "/console/app.js/",
        "/console//app.js", "/console/APP.JS", "/console/app.js%00.html",
        "/console/io/sluice/app/console/app.js", "/console/../../etc/passwd",
        "/console/.%2e/.%2e/etc/passwd", "/consolex", "/console/app.js?x=../pom.xml#")) {
      String a = request("GET", path);
      int code = status(a);
      if (path.startsWith("/console/app.js?")) {
        assertEquals(200, code, path); // a query does not change which file is served
        continue;
      }
      assertTrue(code == 404 || code == 400, path + " -> " + code);
      assertFalse(a.contains("<project"), path);
    }
    String post = request("POST", "/console/");
    assertEquals(405, status(post));
    assertEquals("GET, HEAD", header(post, "Allow"));
  }

  @Test
  @DisplayName("the console puts data in the page as text only and loads nothing from elsewhere")
  void noHtmlFromData() throws IOException {
    String js = resource("app.js");
    String html = resource("index.html");
    String css = resource("app.css");
    for (String sink : List.of("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
        "eval(", "new Function", "setAttribute('on", "javascript:", "localStorage")) {
      assertFalse(js.contains(sink), "app.js uses " + sink);
    }
    assertFalse(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find(), "inline script");
    assertFalse(Pattern.compile("\\son[a-z]+=").matcher(html).find(), "inline event handler");
    assertFalse(Pattern.compile("\\sstyle=").matcher(html).find(), "inline style");
    for (String file : List.of(js, html, css)) {
      assertFalse(Pattern.compile("(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}/").matcher(file).find(),
          "a file loads from another host");
    }
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = ConsoleFiles.class.getResourceAsStream(ConsoleFiles.RESOURCES + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
