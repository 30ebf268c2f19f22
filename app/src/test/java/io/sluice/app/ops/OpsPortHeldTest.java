package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ops port cannot be held by whoever reaches it (issue 33): sockets that send a byte now and
 * then (slow loris) neither stop the probes nor keep their thread beyond the read deadline. Real
 * sockets against the real server.
 */
class OpsPortHeldTest {
  private final List<Socket> sockets = new ArrayList<>();
  private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
  private OpsServer server;

  @AfterEach
  void stop() throws IOException {
    trickle.shutdownNow();
    for (Socket socket : sockets) {
      socket.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void serve(HealthCheck check) {
    server = OpsServer.start(0, new MetricRegistry(),
        new Health(check == null ? List.of() : List.of(check), Map.of()));
  }

  /** Opens {@code count} sockets that each send the start of a request line, then one byte every 200 ms. */
  private void slowLoris(int count) throws IOException {
    for (int i = 0; i < count; i++) {
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 2000);
      socket.getOutputStream().write('G');
      sockets.add(socket);
    }
    trickle.scheduleWithFixedDelay(() -> {
      for (Socket socket : sockets) {
        try {
          socket.getOutputStream().write('E');
        } catch (IOException cut) {
          // the server closed it: what the deadline is for
        }
      }
    }, 200, 200, TimeUnit.MILLISECONDS);
  }

  /** A wait inside a dependency's check. */
  private interface Wait {
    void run() throws InterruptedException;
  }

  /** A Redis check answering once {@code wait} returns: unreachable if interrupted (a handler cut). */
  private static HealthCheck redisAnsweringAfter(Wait wait) {
    return new HealthCheck() {
      @Override
      public String name() {
        return "redis";
      }

      @Override
      public Result check() {
        try {
          wait.run();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Result.unreachable("interrupted: a handler was cut");
        }
        return Result.reachable("answered");
      }
    };
  }

  /** A whole GET on a fresh socket; returns the status line. */
  private String get(String path, int timeoutMillis) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", server.port()), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: ops\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      byte[] head = new byte[12];
      int read = socket.getInputStream().readNBytes(head, 0, head.length);
      return new String(head, 0, read, StandardCharsets.US_ASCII);
    }
  }

  @Test
  @DisplayName("with 200 slow-loris sockets open, /live, /ready and /metrics each answer 200 within 1 s")
  void probesAnswerBesideTwoHundredSlowLorisSockets() throws IOException {
    serve(null);
    slowLoris(200);

    for (String path : List.of("/live", "/ready", "/metrics")) {
      long start = System.nanoTime();
      String status = get(path, 1000);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertEquals("HTTP/1.1 200", status, path);
      assertTrue(millis < 1000, path + " took " + millis + " ms");
    }
  }

  @Test
  @DisplayName("a socket trickling its request head is cut at the read deadline, not before, and not left open")
  void tricklingRequestIsCutAtTheDeadline() throws IOException {
    serve(null);
    slowLoris(1);
    Socket socket = sockets.get(0);
    socket.setSoTimeout((int) OpsExchanges.READ_DEADLINE.toMillis() + 2000);
    long start = System.nanoTime();

    int read;
    try {
      read = socket.getInputStream().read();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("still open " + OpsExchanges.READ_DEADLINE.toMillis() + " ms + 2 s after its first byte", e);
    } catch (IOException reset) {
      read = -1;
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(-1, read, "nothing is answered to a request never finished");
    assertTrue(millis >= OpsExchanges.READ_DEADLINE.toMillis() - 300, "cut after " + millis + " ms");
    assertEquals(1, server.cutForReadDeadline());
  }

  @Test
  @DisplayName("a /ready waiting longer than the read deadline on a slow dependency is answered, not cut")
  void slowDependencyIsNotMistakenForASlowClient() throws IOException {
    long slowMillis = OpsExchanges.READ_DEADLINE.toMillis() + 1000;
    serve(redisAnsweringAfter(() -> Thread.sleep(slowMillis))); // the dependency's own slowness

    assertEquals("HTTP/1.1 200", get("/ready", (int) slowMillis + 3000));
    assertEquals(0, server.cutForReadDeadline());
  }

  @Test
  @DisplayName("past the cap with every exchange handling (none reading), a new socket is refused")
  void pastTheCapWithNoneReadingTheNewIsRefused() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch handling = new CountDownLatch(OpsExchanges.MAX_EXCHANGES);
    serve(redisAnsweringAfter(() -> {
      handling.countDown();
      release.await();
    }));
    for (int i = 0; i < OpsExchanges.MAX_EXCHANGES; i++) {
      Socket socket = new Socket("127.0.0.1", server.port());
      socket.getOutputStream().write("GET /ready HTTP/1.1\r\nHost: ops\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      sockets.add(socket);
    }
    assertTrue(handling.await(10, TimeUnit.SECONDS), "every /ready handling");

    String status;
    try {
      status = get("/live", 1000);
    } catch (IOException refused) {
      status = "";
    }
    assertEquals("", status, "a handler is never cut to make room");
    release.countDown();
    assertEquals(0, server.cutForReadDeadline());
  }
}
