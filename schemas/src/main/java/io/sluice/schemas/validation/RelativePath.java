package io.sluice.schemas.validation;

import java.net.URI;

/**
 * The one rule for an event's {@code path}, and the one way to join it to a provider's base URL.
 * The gate's validator and the HTTP provider both use this class, so every path the gate accepts
 * is a path the provider can send, and the provider refuses nothing the gate let through.
 *
 * <p>A path is a relative reference below the provider's configured base URL. An event can never
 * choose a host nor climb out of the base path, and the request line must be exactly what the
 * producer wrote. So:
 * <ul>
 *   <li>at most {@value #MAX_LENGTH} characters, all of them RFC 3986 path or query characters:
 *       letters, digits, {@code -._~!$&'()*+,;=:/?%}. No whitespace or control character (a CR or
 *       LF could split the request), no {@code \} (some servers read it as {@code /}), no
 *       {@code @} (user-info), no raw non-ASCII (percent-encode it);
 *   <li>no {@code #}: a fragment is never sent in a request, so whatever follows it would be
 *       silently dropped (and {@code a#b#c} is not a URI at all);
 *   <li>{@code %} only as a {@code %XX} escape;
 *   <li>no scheme: no {@code :} before the first {@code /} or {@code ?};
 *   <li>no leading {@code //}, which would name a host;
 *   <li>no {@code ..} anywhere, in any spelling ({@code %2e%2e}, {@code .%2E}): this also refuses
 *       {@code ..;} segments, which some servers (Tomcat) normalise as {@code ..};
 *   <li>no {@code .} segment in the path part ({@code ./a}, {@code a/./b}, {@code a/.;x}), which a
 *       server removes before routing, so the provider would see another path than the event's.
 * </ul>
 * A {@code ?} starts the query, which is sent as written; a path that starts with {@code ?}
 * attaches its query to the base URL itself. {@code work-event.schema.json} states the same rules
 * as patterns ({@code EventValidatorAgreementTest} keeps the two equal).
 */
public final class RelativePath {
  public static final int MAX_LENGTH = 2048;

  /** The ASCII characters a path may hold (before the checks of where they may stand). */
  private static final boolean[] ALLOWED = new boolean[128];

  static {
    String allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        + "-._~!$&'()*+,;=:/?%";
    for (char c : allowed.toCharArray()) {
      ALLOWED[c] = true;
    }
  }

  private RelativePath() {}

  /**
   * Why {@code path} cannot be sent, as a sentence naming field 'path'; null when it can. A null
   * path (absent) is fine: the call goes to the base URL.
   */
  public static String problem(String path) {
    if (path == null) {
      return null;
    }
    String shown = Shown.quoted(path);
    int length = path.codePointCount(0, path.length());
    if (length > MAX_LENGTH) {
      return "field 'path' must be at most " + MAX_LENGTH + " characters long, got " + length;
    }
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '#') {
        return "field 'path' must not contain '#' (a fragment is never sent to the provider), got "
            + shown;
      }
      if (c >= 128 || !ALLOWED[c]) {
        return "field 'path' must be a relative path of URL characters (no whitespace, control "
            + "characters, '@', '\\' or non-ASCII; percent-encode them), got " + shown;
      }
    }
    if (path.startsWith("//")) {
      return "field 'path' must be a relative path, not start with '//' (which names a host), got "
          + shown;
    }
    boolean inFirstSegment = true;
    boolean inQuery = false;
    boolean afterDot = false;
    int segmentStart = 0;
    for (int i = 0; i < path.length(); ) {
      char c = path.charAt(i);
      boolean dot;
      int width = 1;
      if (c == '%') {
        if (i + 2 >= path.length() || !isHex(path.charAt(i + 1)) || !isHex(path.charAt(i + 2))) {
          return "field 'path' may use '%' only as a %XX escape, got " + shown;
        }
        dot = path.charAt(i + 1) == '2' && (path.charAt(i + 2) == 'e' || path.charAt(i + 2) == 'E');
        width = 3;
      } else {
        dot = c == '.';
        if (c == ':' && inFirstSegment) {
          return "field 'path' must be a relative path without a scheme (no ':' before the first "
              + "'/' or '?'), got " + shown;
        }
      }
      if (dot && afterDot) {
        return "field 'path' must not contain '..' (nor %2e%2e), got " + shown;
      }
      // A '.' segment: a dot alone between the segment's start and '/', ';', '?' or the end.
      if (dot && !inQuery && i == segmentStart && endsDotSegment(path, i + width)) {
        return "field 'path' must not contain a '.' segment (a server would remove it), got "
            + shown;
      }
      afterDot = dot;
      if (c == '/' || c == '?') {
        inFirstSegment = false;
        segmentStart = i + 1;
        inQuery |= c == '?';
      }
      i += width;
    }
    return null;
  }

  /** True when {@link #problem} finds nothing. */
  public static boolean isValid(String path) {
    return problem(path) == null;
  }

  /**
   * The base URL plus a relative path: {@code http://h/hooks} + {@code orders/7?x=1} is
   * {@code http://h/hooks/orders/7?x=1} (one leading {@code /} of the path is optional); a path
   * starting with {@code ?} attaches to the base itself; no path is the base.
   *
   * @throws IllegalArgumentException when the path breaks a rule of {@link #problem}
   */
  public static URI resolve(URI base, String path) {
    String problem = problem(path);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    if (path == null || path.isEmpty()) {
      return base;
    }
    // The path goes before the base's query, not after it (issue 33: an endpoint
    // https://h/in?k=1 and the path orders/7 made https://h/in?k=1/orders/7, the event's path
    // inside the endpoint's query); the two queries are joined with '&'.
    String b = base.toString();
    int q = base.getRawQuery() == null ? -1 : b.indexOf('?');
    String head = q < 0 ? b : b.substring(0, q);
    String baseQuery = q < 0 ? null : b.substring(q + 1);
    int pq = path.indexOf('?');
    String relPath = pq < 0 ? path : path.substring(0, pq);
    String relQuery = pq < 0 ? null : path.substring(pq + 1);
    String joined = relPath.isEmpty() ? head
        : (head.endsWith("/") ? head : head + "/") + (relPath.startsWith("/") ? relPath.substring(1) : relPath);
    String query = baseQuery == null ? relQuery : relQuery == null ? baseQuery : baseQuery + "&" + relQuery;
    return URI.create(query == null ? joined : joined + "?" + query);
  }

  private static boolean endsDotSegment(String path, int next) {
    if (next >= path.length()) {
      return true;
    }
    char c = path.charAt(next);
    return c == '/' || c == ';' || c == '?';
  }

  private static boolean isHex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
  }
}
