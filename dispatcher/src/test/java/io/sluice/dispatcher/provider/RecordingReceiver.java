package io.sluice.dispatcher.provider;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A provider for tests: a JDK HTTP server on a free port that records every request and answers
 * what {@code answer} says for it.
 */
public final class RecordingReceiver implements AutoCloseable {
  /** One request as received. */
  public record Received(String method, String path, Headers headers, byte[] body) {
    public String header(String name) {
      return headers.getFirst(name);
    }
  }

  /** The answer to one request. */
  public record Answer(int status, byte[] body) {}

  private final HttpServer server;
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

  public RecordingReceiver(Function<Received, Answer> answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", exchange -> {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      Received r = new Received(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
          exchange.getRequestHeaders(), body);
      received.add(r);
      Answer a = answer.apply(r);
      exchange.sendResponseHeaders(a.status(), a.body().length == 0 ? -1 : a.body().length);
      if (a.body().length > 0) {
        exchange.getResponseBody().write(a.body());
      }
      exchange.close();
    });
    server.start();
  }

  /** A receiver answering 200 with no body. */
  public static RecordingReceiver ok() throws IOException {
    return new RecordingReceiver(r -> new Answer(200, new byte[0]));
  }

  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** The next request, waiting up to 10 s. */
  public Received next() throws InterruptedException {
    Received r = received.poll(10, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("no request within 10 s");
    }
    return r;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
