package io.sluice.dispatcher.provider;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hostile endpoint on a real local socket: it reads a request's head, answers {@code 200} with
 * its headers at once (a {@code Content-Length} of {@code bodyBytes}), then sends the body one
 * byte every {@code everyMillis}. It records when the client hung up, so a test can show the
 * connection was closed, not left reading.
 */
public final class TricklingServer implements AutoCloseable {
  private final ServerSocket server;
  private final Thread acceptor;
  private final int bodyBytes;
  private final long everyMillis;
  /** Nanos (System.nanoTime) when the client closed a connection mid-body; 0 until then. */
  private final AtomicLong hungUpAt = new AtomicLong();
  private final CountDownLatch hungUp = new CountDownLatch(1);
  private final AtomicLong requests = new AtomicLong();

  public TricklingServer(int bodyBytes, long everyMillis) throws IOException {
    this.bodyBytes = bodyBytes;
    this.everyMillis = everyMillis;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "trickling-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + path);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  public long requests() {
    return requests.get();
  }

  /** Waits up to {@code millis} for the client to hang up mid-body; its nanoTime, or 0. */
  public long hungUpAt(long millis) throws InterruptedException {
    hungUp.await(millis, TimeUnit.MILLISECONDS);
    return hungUpAt.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Thread serve = new Thread(() -> serve(socket), "trickling-connection");
        serve.setDaemon(true);
        serve.start();
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      readHead(socket.getInputStream());
      requests.incrementAndGet();
      OutputStream out = socket.getOutputStream();
      out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + bodyBytes
          + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (int i = 0; i < bodyBytes; i++) {
        Thread.sleep(everyMillis); // the trickle itself: the hostile endpoint's pace
        out.write('x');
        out.flush();
      }
    } catch (IOException clientHungUp) {
      hungUpAt.compareAndSet(0, System.nanoTime());
      hungUp.countDown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Reads up to the blank line ending a request head, and the body its Content-Length gives. */
  private static void readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) != -1) {
      head.append((char) b);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        in.readNBytes(Integer.parseInt(line.substring(15).trim()));
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
