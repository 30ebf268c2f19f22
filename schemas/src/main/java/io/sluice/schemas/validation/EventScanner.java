package io.sluice.schemas.validation;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.sluice.schemas.serde.Json;
import java.util.Arrays;

/**
 * The first reading of an inbound value on the hot path: one pass over the bytes, with no parser,
 * context or symbol table, that recognises the usual event and reads its rule fields. It only
 * ever says "this is one JSON object, and here are its rule fields"; for anything it is not sure
 * of it answers null and the value goes on to the readings that judge everything
 * ({@link EventValidator#streamed}, then the tree reading), exactly as before it existed.
 *
 * <p>So it may refuse much that the parser accepts, and must accept nothing the parser refuses.
 * What it accepts is a subset of RFC 8259 within the parser's limits:
 * <ul>
 *   <li>the value is one object, with only space, tab, CR and LF around and between tokens;</li>
 *   <li>strings hold no byte below 0x20, only the escapes JSON defines, and well-formed UTF-8
 *       (no overlong form, no surrogate, nothing past U+10FFFF), at most the parser's maximum
 *       string length in bytes;</li>
 *   <li>numbers are {@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?}, at most
 *       {@value #MAX_NUMBER} characters;</li>
 *   <li>objects and arrays nest at most {@value #MAX_DEPTH} deep, an object has at most
 *       {@value #MAX_NAMES} names, none repeated (compared as bytes), none longer than
 *       {@value #MAX_NAME} bytes and none with an escape;</li>
 *   <li>the rule fields hold what {@link EventValidator#streamed} reads itself: a string without
 *       an escape or null ({@code id}, {@code tenant}, {@code provider}, {@code deadline},
 *       {@code path}, {@code deliverAt}, {@code delay}, {@code orderingKey}, {@code priority}), an integer of at most nine digits, such a string, or null ({@code cost}),
 *       an object of such strings, or null ({@code attributes}).</li>
 * </ul>
 * The rules on the fields' contents are not here: {@link EventValidator} runs the same checks on
 * these fields as on the other readings'. {@code EventScannerProperties} holds it to the parser on
 * generated and mutated values.
 */
final class EventScanner {
  static final int MAX_DEPTH = 64;
  static final int MAX_NAMES = 64;
  static final int MAX_NAME = 1_000;
  static final int MAX_NUMBER = 100;
  /** The parser's own bound on a string, read as bytes (never fewer than its characters). */
  private static final int MAX_STRING;
  /** False when the parser is configured tighter than the bounds above: then this never answers. */
  private static final boolean USABLE;

  static {
    StreamReadConstraints c = Json.mapper().getFactory().streamReadConstraints();
    MAX_STRING = c.getMaxStringLength();
    USABLE = c.getMaxNestingDepth() >= MAX_DEPTH + 1 && c.getMaxNumberLength() >= MAX_NUMBER
        && c.getMaxNameLength() >= MAX_NAME && c.getMaxDocumentLength() <= 0 && c.getMaxTokenCount() <= 0;
  }

  /** The rule fields' names as bytes, in the order of {@code Fields.NAMES}. */
  private static final byte[][] RULES =
      EventValidator.Fields.NAMES.stream().map(EventScanner::bytes).toArray(byte[][]::new);
  private static final byte[] TRUE = bytes("true");
  private static final byte[] FALSE = bytes("false");
  private static final byte[] NULL = bytes("null");

  /** The bytes that stand for themselves in a string: ASCII but controls, the quote and the backslash. */
  private static final boolean[] PLAIN = new boolean[256];

  static {
    for (int c = 0x20; c < 0x80; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  private final byte[] b;
  private final int n;
  /** The names of the objects open around the scan, innermost last: start, length, hash. */
  private int[] names = new int[3 * 8];
  private int top;
  /** The node the last rule field's reading made. */
  private JsonNode read;
  /** The event's rule fields, and its attributes while they are read. */
  private EventValidator.Fields fields;
  private ObjectNode attributes;
  /** How {@link #members} reads an object's values. */
  private static final int TOP = 0;
  private static final int ATTRIBUTES = 1;
  private static final int ANY = 2;

  private EventScanner(byte[] value) {
    this.b = value;
    this.n = value.length;
  }

  /** The rule fields of {@code value}, or null when this reading leaves the value to the others. */
  static EventValidator.Fields fields(byte[] value) {
    return USABLE ? new EventScanner(value).event() : null;
  }

  private EventValidator.Fields event() {
    int i = ws(0);
    if (i >= n || b[i] != '{') {
      return null;
    }
    fields = new EventValidator.Fields();
    i = members(i + 1, 1, TOP);
    // The object must be the whole value.
    return i >= 0 && ws(i) == n ? fields : null;
  }

  /** Reads the value at {@code i} of the top-level field named by b[start, start+len). */
  private int field(int start, int len, int i) {
    for (int rule = 0; rule < RULES.length; rule++) {
      if (len == RULES[rule].length && Arrays.equals(b, start, start + len, RULES[rule], 0, len)) {
        String name = EventValidator.Fields.NAMES.get(rule);
        int end = name.equals("cost") ? cost(i) : name.equals("attributes") ? attributes(i) : scalar(i);
        if (end >= 0) {
          fields.put(name, read);
        }
        return end;
      }
    }
    return value(i, 1);
  }

  /** A string without escapes, or null, into {@link #read}. */
  private int scalar(int i) {
    if (i < n && b[i] == '"') {
      int end = plain(i + 1, MAX_STRING);
      if (end < 0) {
        return -1;
      }
      read = TextNode.valueOf(new String(b, i + 1, end - i - 1, UTF_8));
      return end + 1;
    }
    if (i < n && b[i] == 'n') {
      read = NullNode.getInstance();
      return literal(i, NULL);
    }
    return -1;
  }

  /** An integer of at most nine digits (an int, as the parser reads it), or a scalar, into {@link #read}. */
  private int cost(int i) {
    if (i >= n || b[i] != '-' && (b[i] < '0' || b[i] > '9')) {
      return scalar(i);
    }
    boolean negative = b[i] == '-';
    int d = negative ? i + 1 : i;
    int end = d;
    long v = 0;
    while (end < n && b[end] >= '0' && b[end] <= '9') {
      v = 10 * v + (b[end] - '0');
      end++;
    }
    // No leading zero, at most nine digits, and no fraction or exponent after (those are the
    // other readings'): what follows must be the end of the number.
    if (end == d || end - d > 9 || b[d] == '0' && end - d > 1
        || end < n && (b[end] == '.' || b[end] == 'e' || b[end] == 'E')) {
      return -1;
    }
    read = IntNode.valueOf((int) (negative ? -v : v));
    return end;
  }

  /** An object of strings without escapes, or null, into {@link #read}. */
  private int attributes(int i) {
    if (i < n && b[i] == 'n') {
      read = NullNode.getInstance();
      return literal(i, NULL);
    }
    if (i >= n || b[i] != '{') {
      return -1;
    }
    attributes = JsonNodeFactory.instance.objectNode();
    int end = members(i + 1, 2, ATTRIBUTES);
    read = attributes;
    return end;
  }

  /** The value at {@code i} of the attribute named by b[start, end): a string without escapes. */
  private int attribute(int start, int end, int i) {
    if (i >= n || b[i] != '"') {
      return -1;
    }
    int valueEnd = plain(i + 1, MAX_STRING);
    if (valueEnd < 0) {
      return -1;
    }
    attributes.put(new String(b, start, end - start, UTF_8), new String(b, i + 1, valueEnd - i - 1, UTF_8));
    return valueEnd + 1;
  }

  /** Skips the value at {@code i} inside a container {@code depth} deep; its end, or -1. */
  private int value(int i, int depth) {
    if (i >= n) {
      return -1;
    }
    return switch (b[i]) {
      case '"' -> {
        int end = string(i + 1, MAX_STRING, true);
        yield end < 0 ? -1 : end + 1;
      }
      case '{' -> members(i + 1, depth + 1, ANY);
      case '[' -> array(i + 1, depth + 1);
      case 't' -> literal(i, TRUE);
      case 'f' -> literal(i, FALSE);
      case 'n' -> literal(i, NULL);
      default -> number(i);
    };
  }

  /**
   * The members of an object {@code depth} deep from just after its '{', each value read as
   * {@code kind} says (the event's fields, attributes, or any value); the index after its '}', or -1.
   */
  private int members(int i, int depth, int kind) {
    if (depth > MAX_DEPTH) {
      return -1;
    }
    int mark = top;
    i = ws(i);
    if (i < n && b[i] == '}') {
      return i + 1;
    }
    while (true) {
      if (i >= n || b[i] != '"') {
        return -1;
      }
      int start = i + 1;
      int end = plain(start, MAX_NAME);
      if (end < 0 || !named(mark, start, end)) {
        return -1;
      }
      i = ws(end + 1);
      if (i >= n || b[i] != ':') {
        return -1;
      }
      i = ws(i + 1);
      i = switch (kind) {
        case TOP -> field(start, end - start, i);
        case ATTRIBUTES -> attribute(start, end, i);
        default -> value(i, depth);
      };
      if (i < 0) {
        return -1;
      }
      i = ws(i);
      if (i >= n) {
        return -1;
      }
      if (b[i] == '}') {
        top = mark;
        return i + 1;
      }
      if (b[i] != ',') {
        return -1;
      }
      i = ws(i + 1);
    }
  }

  private int array(int i, int depth) {
    if (depth > MAX_DEPTH) {
      return -1;
    }
    i = ws(i);
    if (i < n && b[i] == ']') {
      return i + 1;
    }
    while (true) {
      i = value(i, depth);
      if (i < 0) {
        return -1;
      }
      i = ws(i);
      if (i >= n) {
        return -1;
      }
      if (b[i] == ']') {
        return i + 1;
      }
      if (b[i] != ',') {
        return -1;
      }
      i = ws(i + 1);
    }
  }

  /**
   * Records the name b[start, end) in the object whose names begin at {@code mark}; false if the
   * object has it already or has too many names for this reading.
   */
  private boolean named(int mark, int start, int end) {
    int len = end - start;
    int hash = len;
    for (int k = start; k < end; k++) {
      hash = 31 * hash + b[k];
    }
    int count = (top - mark) / 3;
    if (count >= MAX_NAMES) {
      return false;
    }
    for (int at = mark; at < top; at += 3) {
      if (names[at + 2] == hash && names[at + 1] == len
          && Arrays.equals(b, names[at], names[at] + len, b, start, end)) {
        return false;
      }
    }
    if (top + 3 > names.length) {
      names = Arrays.copyOf(names, 2 * names.length);
    }
    names[top] = start;
    names[top + 1] = len;
    names[top + 2] = hash;
    top += 3;
    return true;
  }

  private int literal(int i, byte[] word) {
    int end = i + word.length;
    return end <= n && Arrays.equals(b, i, end, word, 0, word.length) ? end : -1;
  }

  /** The number at {@code i} in JSON's grammar; its end, or -1. */
  private int number(int i) {
    int start = i;
    if (i < n && b[i] == '-') {
      i++;
    }
    if (i >= n || b[i] < '0' || b[i] > '9') {
      return -1;
    }
    if (b[i] == '0') {
      i++;
    } else {
      i = digits(i);
    }
    if (i < n && b[i] == '.') {
      int after = digits(i + 1);
      if (after == i + 1) {
        return -1;
      }
      i = after;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < n && (b[i] == '+' || b[i] == '-')) {
        i++;
      }
      int after = digits(i);
      if (after == i) {
        return -1;
      }
      i = after;
    }
    // A digit right after (a leading zero) is no separator, and the caller refuses it.
    return i - start <= MAX_NUMBER ? i : -1;
  }

  private int digits(int i) {
    while (i < n && b[i] >= '0' && b[i] <= '9') {
      i++;
    }
    return i;
  }

  private int ws(int i) {
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
      i++;
    }
    return i;
  }

  /** A string's content from {@code i} without escapes; the index of its closing quote, or -1. */
  private int plain(int i, int maxBytes) {
    return string(i, maxBytes, false);
  }

  /**
   * A string's content from {@code i}, at most {@code maxBytes}, with JSON's escapes if
   * {@code escapes}; the index of its closing quote, or -1.
   */
  private int string(int i, int maxBytes, boolean escapes) {
    int limit = (int) Math.min(n, (long) i + maxBytes + 1);
    while (i < limit) {
      int c = b[i] & 0xff;
      if (PLAIN[c]) {
        i++;
        continue;
      }
      if (c == '"') {
        return i;
      }
      if (c < 0x20) {
        return -1;
      }
      if (c == '\\') {
        i = escapes ? escape(i) : -1;
      } else if (c < 0x80) {
        i++;
      } else {
        i = utf8(i, c);
      }
      if (i < 0) {
        return -1;
      }
    }
    return -1;
  }

  /** The index after the escape at {@code i}, or -1. */
  private int escape(int i) {
    if (i + 1 >= n) {
      return -1;
    }
    return switch (b[i + 1]) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> i + 2;
      case 'u' -> i + 6 <= n && hex(b[i + 2]) && hex(b[i + 3]) && hex(b[i + 4]) && hex(b[i + 5]) ? i + 6 : -1;
      default -> -1;
    };
  }

  private static boolean hex(byte c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
  }

  /**
   * The index after the well-formed UTF-8 sequence at {@code i} whose first byte is {@code c}
   * (0x80 or more), or -1 (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF).
   */
  private int utf8(int i, int c) {
    int more;
    int lo = 0x80;
    int hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      more = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      more = 2;
      if (c == 0xe0) {
        lo = 0xa0;
      } else if (c == 0xed) {
        hi = 0x9f;
      }
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3;
      if (c == 0xf0) {
        lo = 0x90;
      } else if (c == 0xf4) {
        hi = 0x8f;
      }
    } else {
      return -1;
    }
    if (i + more >= n) {
      return -1;
    }
    int second = b[i + 1] & 0xff;
    if (second < lo || second > hi) {
      return -1;
    }
    for (int k = 2; k <= more; k++) {
      if ((b[i + k] & 0xc0) != 0x80) {
        return -1;
      }
    }
    return i + more + 1;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
