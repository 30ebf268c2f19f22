package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The ops port's read deadline as a timeline: milliseconds as nanoseconds of one clock. */
class RequestReadsTest {
  private static final long MS = 1_000_000;
  private final RequestReads reads = new RequestReads(3_000 * MS);

  @Test
  @DisplayName("an exchange still reading its head at start + deadline is overdue, not a moment before")
  void headReadPastTheDeadline() {
    reads.started(1, 10_000 * MS);
    assertEquals(List.of(), reads.overdue(12_999 * MS));
    assertEquals(List.of(1L), reads.overdue(13_000 * MS));
  }

  @Test
  @DisplayName("time spent handling never counts: a slow /ready is not a slow client")
  void handlingIsNotReading() {
    reads.started(1, 0);
    reads.reading(1, false); // the handler was entered at once
    assertEquals(List.of(), reads.overdue(60_000 * MS));
  }

  @Test
  @DisplayName("the deadline runs from the exchange's start: reading the body late is cut at the same instant")
  void bodyReadUnderTheSameDeadline() {
    reads.started(1, 0);
    reads.reading(1, false);
    reads.reading(1, true); // the admin handler reads the body, which trickles
    assertEquals(List.of(), reads.overdue(2_999 * MS));
    assertEquals(List.of(1L), reads.overdue(3_000 * MS));
  }

  @Test
  @DisplayName("an ended exchange is forgotten; others keep their own start")
  void endedAndOthers() {
    reads.started(1, 0);
    reads.started(2, 1_000 * MS);
    reads.ended(1);
    assertEquals(List.of(), reads.overdue(3_500 * MS));
    assertEquals(List.of(2L), reads.overdue(4_000 * MS));
    assertEquals(1, reads.open());
  }

  @Test
  @DisplayName("the one to cut past the cap: the reader that started first; a handler never; none when none reads")
  void oldestReading() {
    reads.started(1, 0);
    reads.started(2, 1_000 * MS);
    reads.started(3, 2_000 * MS);
    assertEquals(Optional.of(1L), reads.oldestReading());
    reads.reading(1, false); // entered its handler
    assertEquals(Optional.of(2L), reads.oldestReading());
    reads.reading(2, false);
    reads.reading(3, false);
    assertEquals(Optional.empty(), reads.oldestReading());
  }

  @Test
  @DisplayName("a deadline of zero would cut every exchange: refused")
  void zeroDeadlineRefused() {
    assertThrows(IllegalArgumentException.class, () -> new RequestReads(0));
  }
}
