package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RecordedEventsTest {
  private static RecordedEvents read(String text, long maxLines, int maxLineBytes, Duration span) {
    return RecordedEvents.of(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
        new RecordedEvents.Bounds(Long.MAX_VALUE, maxLines, maxLineBytes, span));
  }

  @Test
  @DisplayName("ts is read as epoch milliseconds or an RFC 3339 instant, wherever it stands in the line")
  void shouldReadTheArrivalTimeInEitherForm() {
    RecordedEvents in = read("{\"id\": \"a\", \"payload\": {\"ts\": 1}, \"ts\": 1700000000000}\n\n"
        + "{\"ts\": \"2023-11-14T22:13:21Z\", \"id\": \"b\"}\n", 10, 1000, Duration.ofDays(1));
    assertEquals(1_700_000_000_000L, in.next().atMillis());
    RecordedEvents.Line second = in.next();
    assertEquals(1_700_000_001_000L, second.atMillis());
    assertEquals(3, second.number(), "the blank line is counted, so numbers are the file's");
    assertNull(in.next());
  }

  @Test
  @DisplayName("a line that cannot be placed in time stops the read, naming the line")
  void shouldNameTheLineWithoutATime() {
    for (String bad : List.of("{\"id\": \"a\"}", "{\"ts\": \"yesterday\"}", "[1, 2]", "{\"ts\": true}")) {
      RecordedEvents in = read("{\"ts\": 1}\n" + bad + "\n", 10, 1000, Duration.ofDays(1));
      in.next();
      RecordedEvents.BadInput e = assertThrows(RecordedEvents.BadInput.class, in::next);
      assertTrue(e.getMessage().startsWith("line 2"), e.getMessage());
    }
  }

  @Test
  @DisplayName("bounds: lines read, a line's length, and the span of arrival time; a stop by a bound is said")
  void shouldStopAtItsBounds() {
    RecordedEvents lines = read("{\"ts\": 1}\n{\"ts\": 2}\n{\"ts\": 3}\n", 2, 1000, Duration.ofDays(1));
    lines.next();
    lines.next();
    assertNull(lines.next());
    assertTrue(lines.bounded());

    RecordedEvents span = read("{\"ts\": 0}\n{\"ts\": 1000}\n{\"ts\": 1001}\n", 10, 1000, Duration.ofSeconds(1));
    span.next();
    span.next();
    assertNull(span.next());
    assertTrue(span.bounded());

    RecordedEvents longLine = read("{\"ts\": 1, \"pad\": \"" + "x".repeat(100) + "\"}\n", 10, 50, Duration.ofDays(1));
    assertThrows(RecordedEvents.BadInput.class, longLine::next);
  }

  @Test
  @DisplayName("a leading ts is read without the parser and to the same answer; any other form goes to the parser")
  void shouldReadALeadingTsAsTheParserDoes() {
    String[][] table = {
        {"{\"ts\":1700000000000,\"id\":\"a\"}", "1700000000000"},
        {" { \"ts\" : 17 } ", "17"},
        {"{\"ts\": 5, \"ts\": 9}", "5"},                       // the first, as the parser's loop
        {"{\"ts\": -5, \"id\": \"a\"}", "-5"},                  // a sign: the parser's
        {"{\"ts\": \"2023-11-14T22:13:20Z\"}", "1700000000000"}, // a string: the parser's
        {"{\"ts\": 0}", "0"},
    };
    for (String[] row : table) {
      assertEquals(Long.parseLong(row[1]), RecordedEvents.timestamp(row[0].getBytes(StandardCharsets.UTF_8), 1), row[0]);
    }
    for (String bad : new String[] {"{\"ts\": 017}", "{\"ts\": 12.5}", "{\"ts\": 1234567890123456789012}"}) {
      assertThrows(RecordedEvents.BadInput.class,
          () -> RecordedEvents.timestamp(bad.getBytes(StandardCharsets.UTF_8), 1), bad);
    }
  }
}
