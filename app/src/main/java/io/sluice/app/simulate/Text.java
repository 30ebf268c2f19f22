package io.sluice.app.simulate;

/**
 * Names from the input (tenant ids, provider names: anything a producer wrote) made safe to show:
 * in a terminal, control characters become {@code ?} and a long name is cut; in HTML, every
 * character with a meaning is escaped. Pure.
 */
final class Text {
  private Text() {}

  /** For a terminal: printable, at most {@code width} characters. */
  static String shown(String s, int width) {
    StringBuilder b = new StringBuilder(Math.min(s.length(), width));
    for (int i = 0; i < s.length() && b.length() < width; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) ? '?' : c);
    }
    if (s.length() > width && width > 3) {
      b.setLength(width - 3);
      b.append("...");
    }
    return b.toString();
  }

  /** For HTML text and attribute values (quoted with {@code "} or {@code '}). */
  static String html(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> {
          if (c < 0x20 && c != '\t' && c != '\n') {
            b.append("&#xfffd;");
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.toString();
  }
}
