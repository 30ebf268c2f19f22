package io.sluice.gate;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class OutgoingHeadersTest {
  private static final byte[] PRO = OutgoingHeaders.encoded("pro");

  /** A record back from a trip through the ladder: routing of its last decision, a producer's header. */
  private static Headers returned() {
    RecordHeaders h = new RecordHeaders();
    h.add("traceparent", "00-abc".getBytes(UTF_8));
    h.add(HeaderNames.FIRST_SEEN, "1000".getBytes(UTF_8));
    h.add(HeaderNames.TIER, "free".getBytes(UTF_8));
    h.add(HeaderNames.NOT_BEFORE, "5000".getBytes(UTF_8));
    h.add(HeaderNames.RETURN_TO, "s.regate".getBytes(UTF_8));
    h.add(HeaderNames.REASON, "rate_limited".getBytes(UTF_8));
    h.add(HeaderNames.PAID, "false".getBytes(UTF_8));
    h.add(HeaderNames.TICKET, "5000".getBytes(UTF_8));
    h.add(HeaderNames.ATTEMPT, "2".getBytes(UTF_8));
    return h;
  }

  private static List<String> names(Headers headers) {
    List<String> names = new ArrayList<>();
    for (Header h : headers) {
      names.add(h.key());
    }
    return names;
  }

  private static String last(Headers headers, String name) {
    return HeaderValues.last(headers, name).orElse(null);
  }

  @Test
  void anAdmittedEventLosesItsLastTripsRoutingAndKeepsEverythingElse() {
    Headers out = OutgoingHeaders.admitted(returned(), PRO, OutgoingHeaders.decimal(9000));
    assertEquals(List.of("traceparent", HeaderNames.ATTEMPT, HeaderNames.TIER, HeaderNames.FIRST_SEEN), names(out));
    assertEquals("pro", last(out, HeaderNames.TIER), "the tier resolved now, not the one it left with");
    assertEquals("1000", last(out, HeaderNames.FIRST_SEEN), "first seen on its first trip");
    assertEquals("2", last(out, HeaderNames.ATTEMPT));
  }

  @Test
  void anEventSeenForTheFirstTimeIsStampedNow() {
    RecordHeaders fresh = new RecordHeaders();
    fresh.add("traceparent", "00-abc".getBytes(UTF_8));
    Headers out = OutgoingHeaders.admitted(fresh, PRO, OutgoingHeaders.decimal(9000));
    assertEquals(List.of("traceparent", HeaderNames.TIER, HeaderNames.FIRST_SEEN), names(out));
    assertEquals(9000L, HeaderValues.lastLong(out, HeaderNames.FIRST_SEEN).orElseThrow());
  }

  @Test
  void anEmptyFirstSeenIsReplacedAndOnlyTheLastOfSeveralIsKept() {
    RecordHeaders empty = new RecordHeaders();
    empty.add(HeaderNames.FIRST_SEEN, "1".getBytes(UTF_8));
    empty.add(HeaderNames.FIRST_SEEN, null);
    assertEquals("9000", last(OutgoingHeaders.admitted(empty, PRO, OutgoingHeaders.decimal(9000)), HeaderNames.FIRST_SEEN));

    RecordHeaders two = new RecordHeaders();
    two.add(HeaderNames.FIRST_SEEN, "1".getBytes(UTF_8));
    two.add(HeaderNames.FIRST_SEEN, "2".getBytes(UTF_8));
    Headers out = OutgoingHeaders.admitted(two, PRO, OutgoingHeaders.decimal(9000));
    assertEquals(List.of(HeaderNames.TIER, HeaderNames.FIRST_SEEN), names(out));
    assertEquals("2", last(out, HeaderNames.FIRST_SEEN), "what every reader took before");
  }

  @Test
  void aReservedEventCarriesItsRoutingOnceAndNoTicket() {
    Headers out = OutgoingHeaders.deferred(returned(), PRO, OutgoingHeaders.decimal(9000), 12_345,
        OutgoingHeaders.encoded("s.ready"), OutgoingHeaders.encoded("rate_limited"), true, -1);
    assertEquals(List.of("traceparent", HeaderNames.ATTEMPT, HeaderNames.TIER, HeaderNames.FIRST_SEEN,
        HeaderNames.NOT_BEFORE, HeaderNames.RETURN_TO, HeaderNames.REASON, HeaderNames.PAID), names(out));
    assertEquals(12_345L, HeaderValues.lastLong(out, HeaderNames.NOT_BEFORE).orElseThrow());
    assertEquals("s.ready", last(out, HeaderNames.RETURN_TO));
    assertEquals("rate_limited", last(out, HeaderNames.REASON));
    assertEquals("true", last(out, HeaderNames.PAID));
    assertNull(out.lastHeader(HeaderNames.TICKET), "the ticket of its last trip is gone");
  }

  @Test
  void aQueuedEventCarriesItsNewTicket() {
    Headers out = OutgoingHeaders.deferred(returned(), PRO, OutgoingHeaders.decimal(9000), 20_000,
        OutgoingHeaders.encoded("s.regate"), OutgoingHeaders.encoded("rate_limited"), false, 20_000);
    assertEquals(20_000L, HeaderValues.lastLong(out, HeaderNames.TICKET).orElseThrow());
    assertEquals("false", last(out, HeaderNames.PAID));
    assertEquals(1, names(out).stream().filter(HeaderNames.TICKET::equals).count());
  }

  @Test
  void theRecordsOwnHeadersAreLeftAsTheyWere() {
    Headers own = returned();
    List<String> before = names(own);
    OutgoingHeaders.deferred(own, PRO, OutgoingHeaders.decimal(9000), 1, PRO, PRO, false, 1);
    assertEquals(before, names(own));
  }

  @Test
  void decimalsAreWhatHeaderReadersParse() {
    for (long v : new long[] {0, 7, -3, 1_764_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertEquals(Long.toString(v), new String(OutgoingHeaders.decimal(v), UTF_8));
    }
  }

  @Test
  void theCurrentMillisecondIsEncodedOnceAndANewOneAfresh() {
    OutgoingHeaders.Now now = new OutgoingHeaders.Now();
    byte[] first = now.decimal(1_764_000_000_000L);
    assertSame(first, now.decimal(1_764_000_000_000L), "the same millisecond shares its bytes");
    assertEquals("1764000000001", new String(now.decimal(1_764_000_000_001L), UTF_8));
    assertEquals("1764000000000", new String(now.decimal(1_764_000_000_000L), UTF_8), "an earlier one again");
    assertEquals(Long.toString(Long.MIN_VALUE), new String(new OutgoingHeaders.Now().decimal(Long.MIN_VALUE), UTF_8));
  }
}
