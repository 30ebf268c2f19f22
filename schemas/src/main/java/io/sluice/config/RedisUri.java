package io.sluice.config;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code redis.uri}, taken apart. The forms:
 * <pre>
 *   redis://[[user]:password@]host[:port][/db]             standalone
 *   rediss://[[user]:password@]host[:port][/db]            standalone over TLS
 *   redis-cluster://[[user]:password@]h1:p1,h2:p2,...      cluster, seed nodes
 *   rediss-cluster://[[user]:password@]h1:p1,h2:p2,...     cluster over TLS
 * </pre>
 * The user info applies to every node (Redis ACL user and password; without a user, Redis's
 * {@code default} user, which is what {@code requirepass} sets). User and password are
 * percent-decoded, so a password holding '@', ':' or '/' is written {@code %40}, {@code %3A},
 * {@code %2F}. A user info without ':' is a password, as in Lettuce's own URIs. The port defaults
 * to 6379; a cluster has no database number (Redis Cluster has only database 0).
 *
 * <p>{@link #parse} never puts the password in an exception message, and {@link #toString} masks
 * it: a URI may be shown anywhere only through {@link Secrets#uri}.
 *
 * @param tls      connect over TLS (rediss schemes); certificates are checked against the JVM's
 *                 trust store ({@code -Djavax.net.ssl.trustStore=...})
 * @param cluster  a Redis Cluster: the nodes are seeds, the client discovers the rest
 * @param user     ACL user name; null for the default user
 * @param password null for none
 * @param nodes    at least one; exactly one unless {@code cluster}
 * @param database database number of a standalone server
 */
public record RedisUri(boolean tls, boolean cluster, String user, String password,
    List<Node> nodes, int database) {
  public static final int DEFAULT_PORT = 6379;

  /** One host and port. */
  public record Node(String host, int port) {}

  public RedisUri {
    nodes = List.copyOf(nodes);
  }

  /**
   * Parses a URI of one of the forms above.
   *
   * @throws IllegalArgumentException with a message that names what is wrong and never contains
   *                                  the user info
   */
  public static RedisUri parse(String text) {
    int schemeEnd = text.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("expected a URI starting with redis://, rediss://, "
          + "redis-cluster:// or rediss-cluster://");
    }
    String scheme = text.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    boolean tls;
    boolean cluster;
    switch (scheme) {
      case "redis" -> { tls = false; cluster = false; }
      case "rediss" -> { tls = true; cluster = false; }
      case "redis-cluster" -> { tls = false; cluster = true; }
      case "rediss-cluster" -> { tls = true; cluster = true; }
      default -> throw new IllegalArgumentException("unknown scheme \"" + scheme + "\" (expected "
          + "redis, rediss, redis-cluster or rediss-cluster)");
    }
    String rest = text.substring(schemeEnd + 3);
    String user = null;
    String password = null;
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        password = decode(userInfo, "password");
      } else {
        user = colon == 0 ? null : decode(userInfo.substring(0, colon), "user");
        password = decode(userInfo.substring(colon + 1), "password");
      }
      if (password != null && password.isEmpty()) {
        password = null;
      }
    }
    if (rest.contains("?") || rest.contains("#")) {
      throw new IllegalArgumentException("query parameters and fragments are not supported");
    }
    int database = 0;
    int slash = rest.indexOf('/');
    if (slash >= 0) {
      String db = rest.substring(slash + 1);
      rest = rest.substring(0, slash);
      if (!db.isEmpty()) {
        if (cluster) {
          throw new IllegalArgumentException("a Redis Cluster has no database number (only 0)");
        }
        database = number(db, "database number", 0, Integer.MAX_VALUE);
      }
    }
    List<Node> nodes = new ArrayList<>();
    for (String hostPort : rest.split(",", -1)) {
      nodes.add(node(hostPort.trim()));
    }
    if (!cluster && nodes.size() > 1) {
      throw new IllegalArgumentException("several hosts need a cluster scheme ("
          + (tls ? "rediss" : "redis") + "-cluster://)");
    }
    return new RedisUri(tls, cluster, user, password, nodes, database);
  }

  /** This URI with its user info masked, safe to show. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(tls ? "rediss" : "redis").append(cluster ? "-cluster" : "")
        .append("://");
    if (user != null || password != null) {
      b.append(Secrets.MASK).append('@');
    }
    for (int i = 0; i < nodes.size(); i++) {
      b.append(i == 0 ? "" : ",").append(hostText(nodes.get(i).host())).append(':')
          .append(nodes.get(i).port());
    }
    return database == 0 ? b.toString() : b.append('/').append(database).toString();
  }

  private static Node node(String hostPort) {
    if (hostPort.isEmpty()) {
      throw new IllegalArgumentException("a host is missing (empty entry in the host list)");
    }
    String host;
    String port = null;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException("unclosed '[' in an IPv6 host");
      }
      host = hostPort.substring(1, close);
      String after = hostPort.substring(close + 1);
      if (after.startsWith(":")) {
        port = after.substring(1);
      } else if (!after.isEmpty()) {
        throw new IllegalArgumentException("unexpected text after an IPv6 host");
      }
    } else {
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      port = colon < 0 ? null : hostPort.substring(colon + 1);
    }
    if (host.isEmpty() || !host.matches("[A-Za-z0-9._:%-]+")) {
      throw new IllegalArgumentException("expected a host name or address before each port");
    }
    return new Node(host, port == null ? DEFAULT_PORT : number(port, "port", 1, 65535));
  }

  private static int number(String text, String what, int min, int max) {
    try {
      int n = Integer.parseInt(text);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("expected a " + what + " from " + min + " to " + max
        + ", got \"" + (text.length() > 20 ? text.substring(0, 20) + "…" : text) + "\"");
  }

  private static String decode(String text, String what) {
    try {
      return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the " + what + " has a malformed %-escape");
    }
  }

  private static String hostText(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }
}
