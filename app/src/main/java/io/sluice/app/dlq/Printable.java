package io.sluice.app.dlq;

/**
 * Text from a dead letter or an operator, made safe to print on a terminal: a dead letter's
 * tenant, id or detail were written by a producer, and a control character in them (an escape
 * sequence) must not reach the operator's terminal as one.
 */
final class Printable {
  private Printable() {}

  /** {@code text} with control characters as '?', cut to {@code max} characters with "...". */
  static String of(String text, int max) {
    if (text == null) {
      return "-";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), max + 3));
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= max) {
        return out.append("...").toString();
      }
      char c = text.charAt(i);
      out.append(Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? '?' : c);
    }
    return out.toString();
  }
}
