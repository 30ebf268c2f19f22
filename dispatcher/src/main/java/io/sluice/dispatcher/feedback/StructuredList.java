package io.sluice.dispatcher.feedback;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Structured Field List (RFC 9651, formerly 8941), the syntax of {@code RateLimit} and
 * {@code RateLimit-Policy}: {@code "burst";q=100;w=60, "day";q=1000;w=86400}. Items only (an inner
 * list fails the field), each a bare item with parameters. Bare items are kept as Java values:
 * {@link Long} (sf-integer), {@link BigDecimal} (sf-decimal), {@link String} (sf-string),
 * {@link Token} (sf-token), {@link Boolean}; a byte sequence is kept as its base64 text in a
 * {@link Token}, since nothing here decodes one.
 *
 * <p>As the RFC asks, a field that breaks the syntax anywhere is refused as a whole
 * ({@link Malformed}): a partial reading of a limit is worse than none.
 */
final class StructuredList {
  /** An sf-token (unquoted), as distinct from an sf-string. */
  public record Token(String text) {}

  /** One list member: a bare item and its parameters, in order. */
  public record Item(Object value, Map<String, Object> params) {
    public Item {
      params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }
  }

  /** The field does not parse. */
  public static final class Malformed extends Exception {
    Malformed(String message) {
      super(message, null, false, false);
    }
  }

  private final String in;
  private int pos;

  private StructuredList(String in) {
    this.in = in;
  }

  /** Parses a whole field value. */
  public static List<Item> parse(String field) throws Malformed {
    StructuredList p = new StructuredList(field);
    p.skip(' ');
    List<Item> items = new ArrayList<>();
    if (p.pos == p.in.length()) {
      return items; // an empty list
    }
    while (true) {
      items.add(p.item());
      p.skipOws();
      if (p.pos == p.in.length()) {
        return items;
      }
      if (p.in.charAt(p.pos) != ',') {
        throw new Malformed("expected ',' at " + p.pos);
      }
      p.pos++;
      p.skipOws();
      if (p.pos == p.in.length()) {
        throw new Malformed("trailing ','");
      }
    }
  }

  private Item item() throws Malformed {
    if (peek() == '(') {
      throw new Malformed("inner lists are not supported here");
    }
    Object value = bareItem();
    Map<String, Object> params = new LinkedHashMap<>();
    while (peek() == ';') {
      pos++;
      skip(' ');
      String key = key();
      Object v = Boolean.TRUE;
      if (peek() == '=') {
        pos++;
        v = bareItem();
      }
      params.put(key, v); // a repeated key: the last one wins (RFC 9651 4.2.3.2)
    }
    return new Item(value, params);
  }

  private String key() throws Malformed {
    int start = pos;
    char c = peek();
    if (!(c >= 'a' && c <= 'z') && c != '*') {
      throw new Malformed("a key must start with a-z or '*' at " + pos);
    }
    while (pos < in.length()) {
      c = in.charAt(pos);
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'
          || c == '*') {
        pos++;
      } else {
        break;
      }
    }
    return in.substring(start, pos);
  }

  private Object bareItem() throws Malformed {
    char c = peek();
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    if (c == '"') {
      return string();
    }
    if (c == '?') {
      pos++;
      char b = peek();
      if (b != '0' && b != '1') {
        throw new Malformed("bad boolean at " + pos);
      }
      pos++;
      return b == '1';
    }
    if (c == ':') {
      int end = in.indexOf(':', pos + 1);
      if (end < 0) {
        throw new Malformed("unterminated byte sequence");
      }
      String text = in.substring(pos + 1, end);
      if (!text.matches("[A-Za-z0-9+/=]*")) {
        throw new Malformed("bad byte sequence");
      }
      pos = end + 1;
      return new Token(text);
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*') {
      int start = pos++;
      while (pos < in.length() && isTokenChar(in.charAt(pos))) {
        pos++;
      }
      return new Token(in.substring(start, pos));
    }
    throw new Malformed("unexpected " + (c == 0 ? "end" : "'" + c + "'") + " at " + pos);
  }

  private Object number() throws Malformed {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int digitsStart = pos;
    while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
      pos++;
    }
    int intDigits = pos - digitsStart;
    if (intDigits == 0) {
      throw new Malformed("a number needs digits at " + pos);
    }
    if (peek() != '.') {
      if (intDigits > 15) {
        throw new Malformed("integer longer than 15 digits");
      }
      return Long.parseLong(in.substring(start, pos));
    }
    pos++;
    int fracStart = pos;
    while (pos < in.length() && Character.isDigit(in.charAt(pos))) {
      pos++;
    }
    int fracDigits = pos - fracStart;
    if (intDigits > 12 || fracDigits == 0 || fracDigits > 3) {
      throw new Malformed("bad decimal at " + start);
    }
    return new BigDecimal(in.substring(start, pos));
  }

  private String string() throws Malformed {
    pos++; // the opening quote
    StringBuilder s = new StringBuilder();
    while (pos < in.length()) {
      char c = in.charAt(pos++);
      if (c == '\\') {
        if (pos == in.length()) {
          break;
        }
        char e = in.charAt(pos++);
        if (e != '"' && e != '\\') {
          throw new Malformed("bad escape in a string");
        }
        s.append(e);
      } else if (c == '"') {
        return s.toString();
      } else if (c < 0x20 || c > 0x7e) {
        throw new Malformed("a string holds printable ASCII only");
      } else {
        s.append(c);
      }
    }
    throw new Malformed("unterminated string");
  }

  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
  }

  private char peek() {
    return pos < in.length() ? in.charAt(pos) : 0;
  }

  private void skip(char c) {
    while (pos < in.length() && in.charAt(pos) == c) {
      pos++;
    }
  }

  private void skipOws() {
    while (pos < in.length() && (in.charAt(pos) == ' ' || in.charAt(pos) == '\t')) {
      pos++;
    }
  }
}
