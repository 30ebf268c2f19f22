package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.sun.net.httpserver.HttpServer;
import io.sluice.config.AdminConfig;
import io.sluice.config.Secret;
import io.sluice.testkit.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Guessing the admin token over HTTP is slowed at the guesser's address (issue 33: before, every
 * wrong token was answered 401 at once, however many came). Two loopback addresses, 127.0.0.1
 * and 127.0.0.2, stand for a guesser and an operator.
 */
class AdminTokenGuessingTest {
  private static final String READ = "read-token-3f9a1c7e5b2d";
  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private HttpServer server;
  private ExecutorService threads;

  @BeforeEach
  void start() throws Exception {
    AdminApi api = new AdminApi(new AdminConfig(Optional.of(Secret.literal(READ)),
        Optional.empty(), false), () -> null, (p, t) -> null, null, null, clock);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    threads = Executors.newFixedThreadPool(2);
    server.setExecutor(threads);
    server.createContext("/admin/", api);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    threads.shutdownNow();
  }

  /** The status line and headers of a GET /admin/loggers sent from {@code from}. */
  private String get(String from, String token) throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort(),
        InetAddress.getByName(from), 0)) {
      OutputStream out = socket.getOutputStream();
      out.write(("GET /admin/loggers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
          + "Authorization: Bearer " + token + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  private static int status(String answer) {
    return Integer.parseInt(answer.substring(9, 12));
  }

  @Test
  @DisplayName("after five wrong tokens an address waits, unchecked, while another address's right token is served")
  void guessingIsSlowedAtItsAddress() throws Exception {
    for (int i = 0; i < FailedAttempts.FREE + 1; i++) {
      assertEquals(401, status(get("127.0.0.1", "guess-" + i + "-000000000000")));
    }
    String refused = get("127.0.0.1", READ);
    assertEquals(429, status(refused), "even the right token waits: it is not checked");
    assertFalse(refused.contains(READ), "never echoed");
    assertEquals("retry-after: 1", refused.lines().map(String::toLowerCase)
        .filter(l -> l.startsWith("retry-after")).findFirst().orElse("none"));

    assertEquals(200, status(get("127.0.0.2", READ)), "another address is not slowed");

    clock.advance(Duration.ofSeconds(1));
    assertEquals(200, status(get("127.0.0.1", READ)), "its wait over, the right token is served");
    assertEquals(401, status(get("127.0.0.1", "guess-again-00000000")),
        "the right token forgot the run: the next wrong one is a plain 401");
  }
}
