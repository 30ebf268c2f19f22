package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback between clients and one server port, whose replies can be held: while
 * {@link #holdReplies()} is in force, what the server sends is read and kept back (its requests
 * still reach it). A client then times out on requests the server carried out: a Kafka produce
 * the broker wrote, its acknowledgement never seen. Closing a client's connection closes its
 * server side; held bytes of a closed connection are dropped.
 *
 * <p>Threads: one accepting, two per connection (daemon threads, ended by {@link #close()}).
 */
public final class HoldingProxy implements AutoCloseable {
  private final ServerSocket server;
  /** The server's port; 0 until {@link #forwardTo} (a client connecting before is closed). */
  private volatile int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean holding;

  private HoldingProxy(ServerSocket server) {
    this.server = server;
  }

  /**
   * A proxy on a free loopback port, forwarding once told where ({@link #forwardTo}): a server
   * may need to know the proxy's port before it starts (to advertise it).
   */
  public static HoldingProxy start() {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      HoldingProxy proxy = new HoldingProxy(server);
      Thread accepting = new Thread(proxy::accept, "holding-proxy-accept");
      accepting.setDaemon(true);
      accepting.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** Connections from now on go to {@code port} on loopback. */
  public void forwardTo(int port) {
    target = port;
  }

  /** From now on, the server's replies are kept back. */
  public void holdReplies() {
    synchronized (gate) {
      holding = true;
    }
  }

  /** Replies flow again, those kept back first. */
  public void releaseReplies() {
    synchronized (gate) {
      holding = false;
      gate.notifyAll();
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        if (target == 0) {
          closeQuietly(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(upstream);
        pump(client, upstream, false, "holding-proxy-request");
        pump(upstream, client, true, "holding-proxy-reply");
      } catch (IOException e) {
        // Closed, or the target refused one connection: the client sees its socket closed.
      }
    }
  }

  private void pump(Socket from, Socket to, boolean reply, String name) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (reply) {
            awaitReleased();
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // One side closed: the other follows below.
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  private void awaitReleased() throws InterruptedException {
    synchronized (gate) {
      while (holding && !server.isClosed()) {
        gate.wait();
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    releaseReplies();
    sockets.forEach(HoldingProxy::closeQuietly);
  }
}
