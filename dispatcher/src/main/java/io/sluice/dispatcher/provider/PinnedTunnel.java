package io.sluice.dispatcher.provider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the address a tenant's endpoint was checked at the address its call connects to: an
 * in-process HTTP proxy on loopback, the provider's client's only route out, which connects each
 * connection to the address the endpoint guard ({@code GuardedEndpoint}) checked and pinned for that host, and to no
 * other.
 *
 * <h2>Why a proxy</h2>
 * Java 17's {@code java.net.http} resolves a request's host itself when it opens a connection and
 * offers no resolver hook (the resolver SPI, JEP 418, came in 18). Checking a name and then handing
 * the name to the client lets a tenant who controls its DNS answer a public address to the check
 * and {@code 127.0.0.1} or {@code 169.254.169.254} to the connect (rebinding). The alternatives:
 * <ul>
 *   <li>the IP literal in the URL with the name in {@code Host}, SNI in {@code SSLParameters} and a
 *       hostname check in a wrapping trust manager: {@code Host} is a restricted header (a
 *       JVM-wide {@code jdk.httpclient.allowRestrictedHeaders}, read once), SNI is set per
 *       <em>client</em> (a client, and a selector thread, per endpoint: 2,000 of them), and the
 *       client's pool, keyed by the IP, would hand a TLS connection checked for one tenant's name
 *       to another tenant's request at the same address;</li>
 *   <li>the JVM's lookup cache ({@code networkaddress.cache.ttl}) holding the checked answer: what
 *       the guard relied on, not enforced (a cache turned off, or expiring between check and
 *       connect, and the connect resolves again).</li>
 * </ul>
 * Through a proxy the client itself speaks TLS end to end with the name: SNI, the certificate's
 * hostname check and {@code Host} are the client's own, untouched; only the TCP connection is
 * ours, made to the pinned address (as Stripe's Smokescreen does for its webhooks). Its pool is
 * keyed by host and port, so a connection is reused only toward the name it was opened for.
 *
 * <h2>What it accepts</h2>
 * {@code CONNECT host:port} (HTTPS) is answered {@code 200} and then piped both ways, or
 * {@code 403} when no address is pinned for {@code host:port} (a plain request is closed
 * unanswered: any answer would pass for the endpoint's own; fail closed: a call that did not
 * pass the guard goes nowhere). A plain {@code http} request (absolute form, only for an endpoint
 * whose provider allows plain http) is forwarded in origin form with {@code Connection: close},
 * its head and {@code Content-Length} body only: one request per connection, so the client can
 * never send a second request, perhaps another tenant's, down a connection opened for the first.
 * It listens on loopback only, on one selector thread, and refuses more than
 * {@link #MAX_CONNECTIONS} at once.
 */
public final class PinnedTunnel implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PinnedTunnel.class);
  static final int MAX_CONNECTIONS = 8_192;
  private static final int MAX_HEAD = 16 * 1024;
  private static final int BUFFER = 16 * 1024;

  private final Map<String, InetAddress> pins = new ConcurrentHashMap<>();
  private final ServerSocketChannel server;
  private final Selector selector;
  private final Thread loop;
  private final UnaryOperator<InetSocketAddress> network;
  private volatile boolean open = true;
  private int connections;

  public PinnedTunnel() {
    this(UnaryOperator.identity());
  }

  /**
   * A tunnel whose connections go where {@code network} routes each pinned address: the tests'
   * stand-in for the network, sending a public address checked by the guard to a loopback
   * listener playing its server (the guard itself refuses loopback).
   */
  public static PinnedTunnel routedBy(UnaryOperator<InetSocketAddress> network) {
    return new PinnedTunnel(network);
  }

  private PinnedTunnel(UnaryOperator<InetSocketAddress> network) {
    this.network = network;
    try {
      this.selector = Selector.open();
      this.server = ServerSocketChannel.open();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the endpoint tunnel on loopback", e);
    }
    this.loop = new Thread(this::run, "sluice-endpoint-tunnel");
    loop.setDaemon(true);
    loop.start();
  }

  /** The proxy a client routes every request through to reach only pinned addresses. */
  public ProxySelector proxy() {
    InetSocketAddress at = (InetSocketAddress) server.socket().getLocalSocketAddress();
    Proxy proxy = new Proxy(Proxy.Type.HTTP, at);
    return new ProxySelector() {
      @Override
      public List<Proxy> select(URI uri) {
        return List.of(proxy);
      }

      @Override
      public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {}
    };
  }

  /**
   * Connections to {@code host:port} from now go to {@code address}, which the caller checked.
   * A later pin replaces it (also checked); connections already open keep their address.
   */
  public void pin(String host, int port, InetAddress address) {
    pins.put(key(host, port), address);
  }

  /** The address pinned for {@code host:port}, if any. */
  Optional<InetAddress> pinned(String host, int port) {
    return Optional.ofNullable(pins.get(key(host, port)));
  }

  private static String key(String host, int port) {
    String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    return bare.toLowerCase(Locale.ROOT) + ":" + port;
  }

  /** One client connection and, once its head is read, its origin. */
  private final class Pipe {
    final SocketChannel client;
    SocketChannel origin;
    SelectionKey clientKey;
    SelectionKey originKey;
    ByteBuffer head = ByteBuffer.allocate(MAX_HEAD);
    /** Bytes client → origin, and origin → client, waiting to be written. */
    final ByteBuffer up = ByteBuffer.allocate(BUFFER);
    final ByteBuffer down = ByteBuffer.allocate(BUFFER);
    /** Plain http: the body bytes still to forward; past them the client may send nothing. */
    long bodyLeft = -1;
    boolean tunnel;
    boolean connected;
    /** The origin closed; the client is closed once written what is left in {@code down}. */
    boolean originDone;
    /** Plain http: the answer's head was seen (and told the client the connection closes). */
    boolean answerHeadSeen;

    Pipe(SocketChannel client) {
      this.client = client;
    }

    void close() {
      if (!client.isOpen()) {
        return;
      }
      quietly(client);
      if (origin != null) {
        quietly(origin);
      }
      connections--;
    }
  }

  private void run() {
    while (open) {
      try {
        selector.select(500);
        for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
          SelectionKey key = it.next();
          it.remove();
          if (!key.isValid()) {
            continue;
          }
          if (key.isAcceptable()) {
            accept();
            continue;
          }
          Pipe pipe = (Pipe) key.attachment();
          try {
            step(pipe, key);
          } catch (IOException | RuntimeException e) {
            pipe.close();
          }
        }
      } catch (IOException e) {
        if (open) {
          LOG.warn("endpoint tunnel: {}", e.toString());
        }
      }
    }
  }

  private void accept() throws IOException {
    SocketChannel client = server.accept();
    if (client == null) {
      return;
    }
    if (connections >= MAX_CONNECTIONS) {
      quietly(client);
      return;
    }
    connections++;
    client.configureBlocking(false);
    Pipe pipe = new Pipe(client);
    pipe.clientKey = client.register(selector, SelectionKey.OP_READ, pipe);
  }

  private void step(Pipe pipe, SelectionKey key) throws IOException {
    if (key == pipe.originKey && key.isConnectable()) {
      pipe.origin.finishConnect();
      pipe.connected = true;
      if (pipe.tunnel) {
        pipe.down.put("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      interest(pipe);
      return;
    }
    if (key == pipe.clientKey) {
      if (key.isReadable()) {
        if (pipe.head != null) {
          readHead(pipe);
        } else {
          readInto(pipe.client, pipe.up, pipe); // also while connecting: a client gone ends the connect
        }
      }
      if (key.isValid() && key.isWritable()) {
        write(pipe.down, pipe.client);
        if (pipe.originDone && pipe.down.position() == 0) {
          pipe.close();
          return;
        }
      }
    } else if (key == pipe.originKey && pipe.connected) {
      if (key.isReadable()) {
        if (pipe.origin.read(pipe.down) < 0) {
          originEnded(pipe);
          return;
        }
        if (!pipe.tunnel && !pipe.answerHeadSeen && !closeAnswer(pipe)) {
          return;
        }
      }
      if (key.isValid() && key.isWritable()) {
        write(pipe.up, pipe.origin);
      }
    }
    interest(pipe);
  }

  /** Reads the client's request head; once whole, opens the origin connection or refuses. */
  private void readHead(Pipe pipe) throws IOException {
    if (pipe.client.read(pipe.head) < 0) {
      pipe.close();
      return;
    }
    String text = new String(pipe.head.array(), 0, pipe.head.position(), StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      if (!pipe.head.hasRemaining()) {
        refuse(pipe, "400 Bad Request");
      }
      return;
    }
    String[] lines = text.substring(0, end).split("\r\n");
    String[] request = lines[0].split(" ");
    if (request.length != 3) {
      refuse(pipe, "400 Bad Request");
      return;
    }
    String host;
    int port;
    byte[] forward = null;
    if (request[0].equals("CONNECT")) {
      pipe.tunnel = true;
      int colon = request[1].lastIndexOf(':');
      host = request[1].substring(0, colon);
      port = Integer.parseInt(request[1].substring(colon + 1));
      pipe.tunnel = true;
    } else {
      URI uri = URI.create(request[1]);
      if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
        refuse(pipe, "400 Bad Request");
        return;
      }
      host = uri.getHost();
      port = uri.getPort() == -1 ? 80 : uri.getPort();
      StringBuilder out = new StringBuilder(request[0]).append(' ')
          .append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
          .append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()).append(" HTTP/1.1\r\n");
      long length = 0;
      for (int i = 1; i < lines.length; i++) {
        String lower = lines[i].toLowerCase(Locale.ROOT);
        if (lower.startsWith("connection:") || lower.startsWith("proxy-connection:")) {
          continue;
        }
        if (lower.startsWith("transfer-encoding:")) {
          refuse(pipe, "411 Length Required"); // one bounded request per connection, no chunks
          return;
        }
        if (lower.startsWith("content-length:")) {
          length = Long.parseLong(lines[i].substring(15).trim());
        }
        out.append(lines[i]).append("\r\n");
      }
      out.append("Connection: close\r\n\r\n");
      forward = out.toString().getBytes(StandardCharsets.ISO_8859_1);
      pipe.bodyLeft = length;
    }
    Optional<InetAddress> address = pinned(host, port);
    if (address.isEmpty()) {
      refuse(pipe, "403 Forbidden"); // no guard checked this host: fail closed
      return;
    }
    // What came after the head (a plain request's first body bytes) goes on to the origin.
    ByteBuffer rest = ByteBuffer.wrap(pipe.head.array(), end + 4, pipe.head.position() - end - 4);
    pipe.head = null;
    if (forward != null) {
      pipe.up.put(forward);
    }
    if (pipe.tunnel || rest.remaining() <= pipe.bodyLeft) {
      pipe.bodyLeft -= pipe.tunnel ? 0 : rest.remaining();
      pipe.up.put(rest);
    } else {
      refuse(pipe, "400 Bad Request"); // a second request behind the first: never forwarded
      return;
    }
    pipe.origin = SocketChannel.open();
    pipe.origin.configureBlocking(false);
    pipe.originKey = pipe.origin.register(selector, SelectionKey.OP_CONNECT, pipe);
    if (pipe.origin.connect(network.apply(new InetSocketAddress(address.get(), port)))) {
      pipe.connected = true;
      if (pipe.tunnel) {
        pipe.down.put("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  /**
   * Plain http: once the answer's head is whole in {@code down}, replaces its {@code Connection}
   * header with {@code Connection: close}, so the client never offers the connection a second
   * request (the origin may keep it open; this connection carries one request). False when the
   * pipe was closed (a head too long for the buffer).
   */
  private boolean closeAnswer(Pipe pipe) {
    String text = new String(pipe.down.array(), 0, pipe.down.position(), StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (end < 0) {
      if (!pipe.down.hasRemaining()) {
        pipe.close();
        return false;
      }
      return true;
    }
    StringBuilder head = new StringBuilder();
    for (String line : text.substring(0, end).split("\r\n")) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        head.append(line).append("\r\n");
      }
    }
    head.append("Connection: close\r\n\r\n");
    byte[] rewritten = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] rest = Arrays.copyOfRange(pipe.down.array(), end + 4, pipe.down.position());
    if (rewritten.length + rest.length > pipe.down.capacity()) {
      pipe.close();
      return false;
    }
    pipe.down.clear();
    pipe.down.put(rewritten).put(rest);
    pipe.answerHeadSeen = true;
    return true;
  }

  /** Client bytes toward the origin; for plain http, none beyond the request's body. */
  private void readInto(SocketChannel from, ByteBuffer into, Pipe pipe) throws IOException {
    int before = into.position();
    if (from.read(into) < 0) {
      pipe.close(); // the client went away: nothing is owed to it
      return;
    }
    if (!pipe.tunnel) {
      pipe.bodyLeft -= into.position() - before;
      if (pipe.bodyLeft < 0) {
        pipe.close(); // a second request on a connection opened for one: never forwarded
      }
    }
  }

  private static void write(ByteBuffer from, SocketChannel to) throws IOException {
    from.flip();
    try {
      to.write(from);
    } finally {
      from.compact();
    }
  }

  /**
   * The origin ended: it is closed, and the client once it has been written what the origin
   * sent before (the client reads the close as the end of the answer).
   */
  private void originEnded(Pipe pipe) throws IOException {
    pipe.originDone = true;
    quietly(pipe.origin);
    if (pipe.down.position() == 0) {
      pipe.close();
    } else {
      interest(pipe);
    }
  }

  /**
   * Refuses a connection. A {@code CONNECT} is answered {@code status} (the client fails the
   * tunnel: a connection error); a plain request is closed unanswered, since any answer would be
   * taken for the endpoint's own (a 403 dead-lettered as the endpoint refusing the event). A few
   * bytes, which a fresh socket's buffer takes whole.
   */
  private void refuse(Pipe pipe, String status) throws IOException {
    if (!pipe.tunnel) {
      pipe.close();
      return;
    }
    pipe.client.write(ByteBuffer.wrap(("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\n"
        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
    pipe.close();
  }

  /** Reads what there is room for, writes what is waiting. */
  private static void interest(Pipe pipe) {
    if (!pipe.client.isOpen()) {
      return;
    }
    if (pipe.clientKey.isValid()) {
      int ops = (pipe.head != null || pipe.up.hasRemaining() ? SelectionKey.OP_READ : 0)
          | (pipe.down.position() > 0 ? SelectionKey.OP_WRITE : 0);
      pipe.clientKey.interestOps(ops);
    }
    if (pipe.originKey != null && pipe.originKey.isValid() && !pipe.originDone) {
      int ops = !pipe.connected ? SelectionKey.OP_CONNECT
          : (pipe.down.hasRemaining() ? SelectionKey.OP_READ : 0)
              | (pipe.up.position() > 0 ? SelectionKey.OP_WRITE : 0);
      pipe.originKey.interestOps(ops);
    }
  }

  private static void quietly(Channel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing: nothing more to do
    }
  }

  /**
   * Closes the tunnel once; a second call (a provider closed by its dispatcher, then by the
   * supervisor) does nothing.
   */
  @Override
  public synchronized void close() {
    if (!open) {
      return;
    }
    open = false;
    selector.wakeup();
    try {
      loop.join(2000);
      for (SelectionKey key : selector.keys()) {
        quietly(key.channel());
      }
      selector.close();
      server.close();
    } catch (IOException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
