package io.sluice.schemas.trace;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** A producer's traceparent is hostile input: read under a bound, an unusable one is no parent. */
class TraceParentTest {
  private static final String W3C_EXAMPLE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  @DisplayName("the specification's example is read field by field, and written back as it was")
  void readsTheSpecificationsExample() {
    TraceParent p = TraceParent.parse(W3C_EXAMPLE);
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", p.traceId());
    assertEquals("00f067aa0ba902b7", p.parentId());
    assertTrue(p.sampled());
    assertEquals(W3C_EXAMPLE, p.header());
    assertEquals(p, TraceParent.parse(W3C_EXAMPLE.getBytes(UTF_8)));
  }

  @Test
  @DisplayName("the sampled flag is bit 0 of the flags; other bits are ignored")
  void sampledIsBitZero() {
    assertFalse(TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").sampled());
    assertTrue(TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03").sampled());
    assertFalse(TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-02").sampled());
  }

  @Test
  @DisplayName("a later version is read by its first four fields, and written back as version 00")
  void laterVersionByItsFirstFields() {
    TraceParent p = TraceParent.parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds");
    assertEquals(W3C_EXAMPLE, p.header());
  }

  @ParameterizedTest(name = "unusable: \"{0}\"")
  @ValueSource(strings = {
      "",
      "garbage",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",          // short flags
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",         // upper case
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",         // all-zero trace id
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",         // all-zero parent id
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",         // the forbidden version
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",   // version 00 with more
      "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",        // a later version, no dash
      "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",         // wrong separators
      "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",         // not hex
      " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",        // padded
  })
  void unusableIsNoParent(String value) {
    assertNull(TraceParent.parse(value));
    assertNull(TraceParent.parse(value.getBytes(UTF_8)));
  }

  @Test
  @DisplayName("a value over 256 bytes is not read at all, whatever it starts with")
  void oversizedIsNotRead() {
    String huge = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + "x".repeat(TraceParent.MAX_BYTES);
    assertNull(TraceParent.parse(huge.getBytes(UTF_8)));
    assertNull(TraceParent.parse(huge));
    assertNull(TraceParent.parse((byte[]) null));
  }

  @Test
  @DisplayName("a record's parent is its last traceparent; an unusable one gives none")
  void parentIsTheLastHeader() {
    Headers h = new RecordHeaders();
    assertNull(TraceHeaders.parent(h));
    h.add("traceparent", "00-11111111111111111111111111111111-2222222222222222-01".getBytes(UTF_8));
    h.add("traceparent", W3C_EXAMPLE.getBytes(UTF_8));
    assertEquals(TraceParent.parse(W3C_EXAMPLE), TraceHeaders.parent(h));
    h.add("traceparent", "forged".getBytes(UTF_8));
    assertNull(TraceHeaders.parent(h), "the last one is what a reader takes; unusable, no parent");
    h.add("traceparent", null);
    assertNull(TraceHeaders.parent(h));
  }

  @Test
  @DisplayName("a stage's context replaces every traceparent the record carried; none leaves them")
  void carryReplacesEveryCopy() {
    Headers h = new RecordHeaders();
    h.add("traceparent", "forged".getBytes(UTF_8));
    h.add("other", "kept".getBytes(UTF_8));
    h.add("traceparent", W3C_EXAMPLE.getBytes(UTF_8));
    TraceParent mine = new TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "1234567890abcdef", true);
    TraceHeaders.carry(h, mine);
    assertEquals(2, h.toArray().length);
    assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-1234567890abcdef-01",
        new String(h.lastHeader("traceparent").value(), UTF_8));
    assertEquals("kept", new String(h.lastHeader("other").value(), UTF_8));
    Headers untouched = new RecordHeaders();
    untouched.add("traceparent", "forged".getBytes(UTF_8));
    TraceHeaders.carry(untouched, null);
    assertEquals("forged", new String(untouched.lastHeader("traceparent").value(), UTF_8));
  }
}
