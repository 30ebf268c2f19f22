package io.sluice.schemas.validation;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * How a detail sentence shows an offending value. Details become {@code sluice-detail} headers and
 * log lines, so a value is quoted with control characters escaped (a newline in a tenant id must
 * stay visible) and cut short (a megabyte "id" must not become a megabyte header).
 */
final class Shown {
  static final int MAX_SHOWN = 64;

  private Shown() {}

  /** {@code "a b"}, escaped and cut to {@value #MAX_SHOWN} characters with its full length. */
  static String quoted(String text) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_SHOWN) + 16).append('"');
    int shown = 0;
    for (int i = 0; i < text.length() && shown < MAX_SHOWN; i++, shown++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          boolean invisible = c < 0x20 || c == 0x7f || Character.getType(c) == Character.FORMAT
              || c != ' ' && (Character.isWhitespace(c) || Character.isSpaceChar(c));
          if (invisible) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
    if (shown < text.length()) {
      out.append("… (").append(text.length()).append(" characters)");
    }
    return out.toString();
  }

  /** What kind of JSON value a node is, with the value when it is short: a number 1.5. */
  static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case STRING -> "a string " + quoted(node.textValue());
      case NUMBER -> "a number " + node.asText();
      case BOOLEAN -> node.asText();
      case NULL -> "null";
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      default -> "nothing";
    };
  }
}
