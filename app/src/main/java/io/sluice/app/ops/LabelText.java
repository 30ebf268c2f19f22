package io.sluice.app.ops;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The label syntax of the Prometheus text format, for the registry names {@link MetricNames}
 * builds and reads back (and for the tests' strict exposition parser), so that both escape and
 * read {@code {a="x",b="y"}} the same way as Prometheus.
 *
 * <p>A label value escapes exactly three characters: backslash as {@code \\}, double quote as
 * {@code \"} and line feed as {@code \n}. Everything else, including other control characters and
 * any Unicode, is written as is (UTF-8 on the wire).
 */
final class LabelText {
  static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private LabelText() {}

  static String escapeValue(String value) {
    StringBuilder out = new StringBuilder(value.length() + 8);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** {@code {a="x",b="y"}} in the map's order, or nothing for no labels. */
  static void append(StringBuilder out, Map<String, String> labels) {
    if (labels.isEmpty()) {
      return;
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(label.getKey()).append("=\"").append(escapeValue(label.getValue())).append('"');
    }
    out.append('}');
  }

  /** Labels read by {@link #parse}, and the index just after the closing brace. */
  record Parsed(Map<String, String> labels, int end) {}

  /**
   * Reads a label set starting at its opening brace, at {@code start}. Strict: a label named twice,
   * an unknown escape, a missing quote or brace is an {@link IllegalArgumentException} naming the
   * column. A trailing comma before the brace is allowed, as the format allows it.
   */
  static Parsed parse(String text, int start) {
    if (start >= text.length() || text.charAt(start) != '{') {
      throw new IllegalArgumentException("expected '{' at column " + (start + 1));
    }
    Map<String, String> labels = new TreeMap<>();
    int i = start + 1;
    while (true) {
      if (i >= text.length()) {
        throw new IllegalArgumentException("unterminated label set");
      }
      if (text.charAt(i) == '}') {
        return new Parsed(labels, i + 1);
      }
      int nameStart = i;
      while (i < text.length() && isLabelNameChar(text.charAt(i), i == nameStart)) {
        i++;
      }
      String name = text.substring(nameStart, i);
      if (name.isEmpty()) {
        throw new IllegalArgumentException("expected a label name at column " + (nameStart + 1));
      }
      if (i + 1 >= text.length() || text.charAt(i) != '=' || text.charAt(i + 1) != '"') {
        throw new IllegalArgumentException("expected =\" after label " + name + " at column " + (i + 1));
      }
      i += 2;
      StringBuilder value = new StringBuilder();
      while (true) {
        if (i >= text.length()) {
          throw new IllegalArgumentException("unterminated value of label " + name);
        }
        char c = text.charAt(i);
        if (c == '"') {
          i++;
          break;
        }
        if (c == '\n') {
          throw new IllegalArgumentException("raw line feed in value of label " + name);
        }
        if (c == '\\') {
          if (i + 1 >= text.length()) {
            throw new IllegalArgumentException("dangling backslash in value of label " + name);
          }
          char escaped = text.charAt(i + 1);
          switch (escaped) {
            case '\\' -> value.append('\\');
            case '"' -> value.append('"');
            case 'n' -> value.append('\n');
            default -> throw new IllegalArgumentException(
                "unknown escape \\" + escaped + " in value of label " + name + " at column " + (i + 1));
          }
          i += 2;
        } else {
          value.append(c);
          i++;
        }
      }
      if (labels.put(name, value.toString()) != null) {
        throw new IllegalArgumentException("label " + name + " appears twice");
      }
      if (i < text.length() && text.charAt(i) == ',') {
        i++;
      } else if (i >= text.length() || text.charAt(i) != '}') {
        throw new IllegalArgumentException("expected ',' or '}' at column " + (i + 1));
      }
    }
  }

  private static boolean isLabelNameChar(char c, boolean first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
  }
}
