package io.sluice.dispatcher.pause;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an operator typed, bounded before it is stored and shown. */
class OperatorTextTest {
  @Test
  @DisplayName("plain text is kept as it is")
  void plain() {
    assertEquals("partner 500s, ticket #4711 — ça va", OperatorText.clean(
        "partner 500s, ticket #4711 — ça va", OperatorText.MAX_REASON));
  }

  @Test
  @DisplayName("line breaks and escapes cannot forge a log line or colour a terminal")
  void controls() {
    assertEquals("ok [31mFAKE INFO resumed", OperatorText.clean(
        "ok\r\n\u001b[31mFAKE\tINFO\u0000resumed\n", 200));
  }

  @Test
  @DisplayName("bidirectional overrides and zero-width characters are removed")
  void formatCharacters() {
    assertEquals("abc def", OperatorText.clean("a\u202Eb\u200Bc\u2066 def\uFEFF", 200));
  }

  @Test
  @DisplayName("an unpaired surrogate is removed; a pair (an emoji) is kept whole")
  void surrogates() {
    assertEquals("xy \uD83D\uDE00", OperatorText.clean("x\uD800y \uD83D\uDE00", 200));
  }

  @Test
  @DisplayName("a megabyte of text is cut to the bound, in code points, ending with an ellipsis")
  void bounded() {
    String huge = "\uD83D\uDE00".repeat(500_000);
    String kept = OperatorText.clean(huge, OperatorText.MAX_REASON);
    assertEquals(OperatorText.MAX_REASON, kept.codePointCount(0, kept.length()));
    assertTrue(kept.endsWith("\u2026"));
    assertEquals("abc", OperatorText.clean("abc", 3), "exactly the bound is not cut");
    assertEquals("ab\u2026", OperatorText.clean("abcd", 3));
  }

  @Test
  @DisplayName("null, blank and control-only text become empty")
  void empty() {
    assertEquals("", OperatorText.clean(null, 10));
    assertEquals("", OperatorText.clean(" \n\t\u0007 ", 10));
  }
}
