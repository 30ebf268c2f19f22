package io.sluice.config;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The guard against pointing Sluice at internal services through a tenant's endpoint: which hosts
 * a per-tenant endpoint may name ({@code allowedHosts}) and which addresses it may reach (none
 * private, loopback, link-local, multicast, unspecified or reserved unless
 * {@code allowPrivateNetworks: true}). Pure: the caller resolves names (the dispatcher, at call
 * time) and hands the addresses in; a literal address is judged here without any lookup.
 *
 * <h2>What counts as internal</h2>
 * IPv4: 0.0.0.0/8, 10/8, 100.64/10 (carrier-grade NAT), 127/8, 169.254/16 (link-local, cloud
 * metadata services), 172.16/12, 192.0.0/24, 192.0.2/24, 192.168/16, 198.18/15, 198.51.100/24,
 * 203.0.113/24, 224/4 (multicast) and 240/4 (reserved, broadcast). IPv6: {@code ::}, {@code ::1},
 * fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (site-local), ff00::/8 (multicast),
 * 100::/64, 2001:db8::/32, 2001::/32 (Teredo, whose tunnel could reach anything) and
 * 64:ff9b:1::/48; an IPv6 address carrying an IPv4 one (IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 address
 * it carries.
 *
 * <h2>Numeric hosts</h2>
 * A host made of numbers only must be a plain dotted quad of four decimal numbers of at most 255
 * without leading zeros. {@code 2130706433}, {@code 127.1}, {@code 0x7f.0.0.1} and
 * {@code 0177.0.0.1} are refused: resolvers read them differently (some as 127.0.0.1), and a
 * guard that reads them one way while the HTTP client reads them another guards nothing.
 */
public final class EndpointHosts {
  private static final Pattern DOTTED_QUAD =
      Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])){3}");
  private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0[xX][0-9a-fA-F]*");
  /** A host pattern: a host name, or {@code *.} and a domain. */
  public static final Pattern HOST_PATTERN =
      Pattern.compile("(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

  private EndpointHosts() {}

  /**
   * Whether {@code host} matches one of {@code patterns} ({@code api.example.com} exactly,
   * {@code *.example.com} any host strictly below example.com), ignoring case and a trailing dot.
   * No patterns: every host.
   */
  public static boolean allowed(String host, List<String> patterns) {
    if (patterns.isEmpty()) {
      return true;
    }
    String h = normal(host);
    for (String pattern : patterns) {
      String p = normal(pattern);
      if (p.startsWith("*.") ? h.endsWith(p.substring(1)) && h.length() > p.length() - 1
          : h.equals(p)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Why {@code host} (as a URL gives it: an IPv6 literal in brackets) may not be an endpoint
   * before any lookup, or empty: a literal address that is internal, a numeric host that is not a
   * plain dotted quad, or {@code localhost} and the names below it. A name is judged again by the
   * addresses it resolves to ({@link #refusal(InetAddress)}), at every call.
   */
  public static Optional<String> literalRefusal(String host) {
    String h = normal(host);
    if (h.equals("localhost") || h.endsWith(".localhost")) {
      return Optional.of("loopback (localhost)");
    }
    if (h.startsWith("[") || h.contains(":")) {
      String literal = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
      if (!literal.matches("[0-9a-f:.]+")) {
        return Optional.of("not an IPv6 address (\"" + host + "\")");
      }
      return parse(literal).map(EndpointHosts::refusal)
          .orElse(Optional.of("not an IPv6 address (\"" + host + "\")"));
    }
    if (DOTTED_QUAD.matcher(h).matches()) {
      return parse(h).flatMap(EndpointHosts::refusal);
    }
    boolean numeric = true;
    for (String label : h.split("\\.", -1)) {
      numeric &= NUMERIC_LABEL.matcher(label).matches();
    }
    return numeric ? Optional.of("a numeric host that is not a plain dotted quad (\"" + host
        + "\"): write the address as four decimal numbers, like 203.0.113.7")
        : Optional.empty();
  }

  /** Why the address may not be reached through a tenant's endpoint, or empty if it may. */
  public static Optional<String> refusal(InetAddress address) {
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      return ipv4(b, 0);
    }
    if (address instanceof Inet6Address) {
      return ipv6(b);
    }
    return Optional.of("not an IP address");
  }

  /** Why one of the addresses a name resolved to may not be reached, or empty if none. */
  public static Optional<String> refusal(List<InetAddress> resolved) {
    for (InetAddress a : resolved) {
      Optional<String> why = refusal(a);
      if (why.isPresent()) {
        return Optional.of(why.get() + " (" + a.getHostAddress() + ")");
      }
    }
    return resolved.isEmpty() ? Optional.of("no address") : Optional.empty();
  }

  private static Optional<String> ipv4(byte[] b, int at) {
    int a0 = b[at] & 0xff;
    int a1 = b[at + 1] & 0xff;
    int a2 = b[at + 2] & 0xff;
    if (a0 == 0) {
      return Optional.of("unspecified (0.0.0.0/8)");
    }
    if (a0 == 127) {
      return Optional.of("loopback (127.0.0.0/8)");
    }
    if (a0 == 10 || a0 == 172 && (a1 & 0xf0) == 16 || a0 == 192 && a1 == 168) {
      return Optional.of("private");
    }
    if (a0 == 100 && (a1 & 0xc0) == 64) {
      return Optional.of("private (carrier-grade NAT, 100.64.0.0/10)");
    }
    if (a0 == 169 && a1 == 254) {
      return Optional.of("link-local (169.254.0.0/16)");
    }
    if (a0 >= 224 && a0 < 240) {
      return Optional.of("multicast");
    }
    if (a0 >= 240) {
      return Optional.of("reserved (240.0.0.0/4, broadcast)");
    }
    if (a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2) || a0 == 198 && (a1 & 0xfe) == 18
        || a0 == 198 && a1 == 51 && a2 == 100 || a0 == 203 && a1 == 0 && a2 == 113) {
      return Optional.of("reserved");
    }
    return Optional.empty();
  }

  private static Optional<String> ipv6(byte[] b) {
    boolean firstTenZero = true;
    for (int i = 0; i < 10; i++) {
      firstTenZero &= b[i] == 0;
    }
    if (firstTenZero && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
      return ipv4(b, 12).map(why -> why + ", IPv4-mapped");
    }
    if (firstTenZero && b[10] == 0 && b[11] == 0) {
      boolean zero = b[12] == 0 && b[13] == 0 && b[14] == 0;
      if (zero && b[15] == 0) {
        return Optional.of("unspecified (::)");
      }
      if (zero && b[15] == 1) {
        return Optional.of("loopback (::1)");
      }
      return ipv4(b, 12).map(why -> why + ", IPv4-compatible")
          .or(() -> Optional.of("reserved (IPv4-compatible ::/96)"));
    }
    int w0 = (b[0] & 0xff) << 8 | (b[1] & 0xff);
    int w1 = (b[2] & 0xff) << 8 | (b[3] & 0xff);
    int w2 = (b[4] & 0xff) << 8 | (b[5] & 0xff);
    if (w0 == 0x64 && w1 == 0xff9b) {
      boolean wellKnown = true;
      for (int i = 4; i < 12; i++) {
        wellKnown &= b[i] == 0;
      }
      if (wellKnown) {
        return ipv4(b, 12).map(why -> why + ", NAT64");
      }
      if (w2 == 1) {
        return Optional.of("private (local-use NAT64, 64:ff9b:1::/48)");
      }
    }
    if (w0 == 0x2002) {
      return ipv4(b, 2).map(why -> why + ", 6to4");
    }
    if (w0 == 0x2001 && w1 == 0) {
      return Optional.of("reserved (Teredo, 2001::/32)");
    }
    if (w0 == 0x2001 && w1 == 0x0db8) {
      return Optional.of("reserved (documentation, 2001:db8::/32)");
    }
    if (w0 == 0x100 && w1 == 0 && w2 == 0 && b[6] == 0 && b[7] == 0) {
      return Optional.of("reserved (discard, 100::/64)");
    }
    if ((w0 & 0xfe00) == 0xfc00) {
      return Optional.of("private (unique local, fc00::/7)");
    }
    if ((w0 & 0xffc0) == 0xfe80) {
      return Optional.of("link-local (fe80::/10)");
    }
    if ((w0 & 0xffc0) == 0xfec0) {
      return Optional.of("private (site-local, fec0::/10)");
    }
    if ((w0 & 0xff00) == 0xff00) {
      return Optional.of("multicast");
    }
    return Optional.empty();
  }

  /** A literal address, parsed without a lookup (the caller has checked it is one). */
  private static Optional<InetAddress> parse(String literal) {
    try {
      return Optional.of(InetAddress.getByName(literal));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }

  private static String normal(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }
}
