package io.sluice.schemas.validation;

/**
 * The rule for an event's {@code attributes}: each is a request header the HTTP provider may
 * forward, so each must be one that can be sent. The name is an HTTP token (RFC 9110: letters,
 * digits and {@code !#$%&'*+-.^_`|~}), the value printable ASCII, space and tab (no CR or LF,
 * which would end the header, no other control character, nothing beyond ASCII, which
 * {@code java.net.http} refuses above U+00FF and providers read differently above U+007F), and
 * no space or tab at either end: HTTP strips them ({@code java.net.http} already does when the
 * request is built), so the provider would read another value than the producer wrote. An empty
 * value is sent as an empty header.
 *
 * <p>Every attribute is checked, not only those a provider's {@code forwardHeaders} names today:
 * that list is configuration and may grow while the event waits in the ladder, and an event must
 * be decided once, at the gate. {@code work-event.schema.json} states the same rule.
 */
public final class AttributeHeader {
  private static final boolean[] TCHAR = new boolean[128];

  static {
    String tchars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        + "!#$%&'*+-.^_`|~";
    for (char c : tchars.toCharArray()) {
      TCHAR[c] = true;
    }
  }

  private AttributeHeader() {}

  /** Why attribute {@code name: value} cannot be a header, naming field 'attributes'; null when it can. */
  public static String problem(String name, String value) {
    if (!isToken(name)) {
      return "field 'attributes' names must be HTTP header names (letters, digits and "
          + "!#$%&'*+-.^_`|~), got " + Shown.quoted(name);
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c > 0x7e) {
        return "field 'attributes' values must be printable ASCII, space or tab (they are sent as "
            + "request headers; no CR/LF, control characters or non-ASCII), but attribute "
            + Shown.quoted(name) + " is " + Shown.quoted(value);
      }
    }
    if (!value.isEmpty() && (isBlank(value.charAt(0)) || isBlank(value.charAt(value.length() - 1)))) {
      return "field 'attributes' values must not start or end with a space or tab (HTTP strips "
          + "them from a header), but attribute " + Shown.quoted(name) + " is " + Shown.quoted(value);
    }
    return null;
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  /** Whether {@code name} is an HTTP token: an attribute's name, as the file's rules name one too. */
  public static boolean isToken(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 128 || !TCHAR[c]) {
        return false;
      }
    }
    return true;
  }
}
