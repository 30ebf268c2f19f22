package io.sluice.dispatcher.pause;

/**
 * Bounds what an operator typed (a pause's reason, who paused) before it is stored, shown in
 * {@code /health}, {@code status} and logs: operator input is hostile until bounded.
 *
 * <p>{@link #clean}: control characters (line breaks, escapes, NUL) become a space, runs of
 * whitespace become one space, Unicode format characters (bidirectional overrides, zero-width
 * characters), unassigned and private-use code points and unpaired surrogates are removed, the ends are trimmed, and at most {@code max} code points are kept
 * (a cut text ends with an ellipsis). So a reason can neither forge a log line, nor reorder what a
 * terminal shows, nor grow a health report without bound.
 */
public final class OperatorText {
  /** Longest reason kept, in code points. */
  public static final int MAX_REASON = 200;
  /** Longest "who" kept, in code points. */
  public static final int MAX_WHO = 100;

  private OperatorText() {}

  /** {@code text} made safe to show and cut to {@code max} code points; null becomes "". */
  public static String clean(String text, int max) {
    if (text == null || max < 1) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    int count = 0;
    boolean space = false;
    // Reads at most max + 1 visible code points: a megabyte of input costs no more than a line.
    for (int i = 0; i < text.length() && count <= max; ) {
      int c = text.codePointAt(i);
      i += Character.charCount(c);
      if (Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)) {
        space = count > 0;
        continue;
      }
      if (!visible(c)) {
        continue;
      }
      if (space) {
        out.append(' ');
        count++;
        space = false;
      }
      out.appendCodePoint(c);
      count++;
    }
    if (count <= max) {
      return out.toString();
    }
    String cut = out.substring(0, out.offsetByCodePoints(0, max - 1)).stripTrailing();
    return cut + "\u2026";
  }

  /** A name or value quoted in an error message: cleaned and cut to 60 code points. */
  static String shown(String text) {
    return clean(text, 60);
  }

  private static boolean visible(int c) {
    int type = Character.getType(c);
    return type != Character.CONTROL && type != Character.FORMAT && type != Character.SURROGATE
        && type != Character.UNASSIGNED && type != Character.PRIVATE_USE;
  }
}
