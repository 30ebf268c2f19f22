package io.sluice.gate;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.schemas.event.Priority;
import io.sluice.schemas.topic.HeaderNames;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers of a record the limit step writes, built in one pass over the record's own.
 *
 * <p>What goes out: the record's headers minus what a previous trip through the ladder left
 * (not-before, return-to, paid, ticket, reason, eta, priority: each decision writes its own), then the tier, the
 * first-seen time (kept if an earlier trip wrote it: inbound records lost theirs at the trust
 * boundary, so one present here is this gate's own), and, for a deferred event, its routing. The
 * result is what {@code HeaderValues.put} name by name would leave (every name Sluice writes
 * appears once, readers take the last value), without copying and searching the list once per
 * name: the limit step builds one for every event.
 *
 * <p>Header values that do not change from event to event (a return topic, a reason, paid) are
 * encoded once by the caller ({@link #encoded}) and shared between records: nothing on the way
 * to the producer writes into a header's value.
 */
final class OutgoingHeaders {
  /** The names a trip through the ladder leaves, which each decision writes afresh. */
  private static final String[] ROUTING = {
      HeaderNames.NOT_BEFORE, HeaderNames.RETURN_TO, HeaderNames.PAID, HeaderNames.TICKET,
      HeaderNames.REASON, HeaderNames.TIER, HeaderNames.ETA, HeaderNames.PRIORITY};
  /** Each class's {@code sluice-priority} value but the default's (which writes none). */
  private static final Map<Priority, byte[]> PRIORITIES = new EnumMap<>(Priority.class);

  static {
    for (Priority p : Priority.values()) {
      if (p != Priority.DEFAULT) {
        PRIORITIES.put(p, encoded(p.wire()));
      }
    }
  }

  static final byte[] TRUE = encoded("true");
  static final byte[] FALSE = encoded("false");

  private OutgoingHeaders() {}

  static byte[] encoded(String value) {
    return value.getBytes(UTF_8);
  }

  /**
   * The record's headers without the routing names, with {@code tier} (its UTF-8 bytes) and the
   * first-seen time ({@code now}, the current time's {@link #decimal}, unless a non-empty one is
   * there already).
   */
  static Headers admitted(Headers own, byte[] tier, byte[] now) {
    RecordHeaders out = new RecordHeaders();
    Header firstSeen = null;
    for (Header h : own) {
      String key = h.key();
      if (isRouting(key)) {
        continue;
      }
      if (key.equals(HeaderNames.FIRST_SEEN)) {
        // The last one is what every reader takes; earlier copies are dropped with it.
        firstSeen = h;
        continue;
      }
      out.add(h);
    }
    out.add(new RecordHeader(HeaderNames.TIER, tier));
    out.add(firstSeen != null && firstSeen.value() != null
        ? firstSeen
        : new RecordHeader(HeaderNames.FIRST_SEEN, now));
    return out;
  }

  /**
   * {@link #admitted} with a deferred event's routing: when it may go, where it returns, why,
   * whether it is paid, and its ticket (its place in the line) when it has one ({@code ticket}
   * &lt; 0: none).
   */
  static Headers deferred(Headers own, byte[] tier, byte[] now, long notBefore, byte[] returnTo,
      byte[] reason, boolean paid, long ticket) {
    Headers out = admitted(own, tier, now);
    if (ticket >= 0) {
      out.add(new RecordHeader(HeaderNames.TICKET, decimal(ticket)));
    }
    out.add(new RecordHeader(HeaderNames.NOT_BEFORE, decimal(notBefore)));
    out.add(new RecordHeader(HeaderNames.RETURN_TO, returnTo));
    out.add(new RecordHeader(HeaderNames.REASON, reason));
    out.add(new RecordHeader(HeaderNames.PAID, paid ? TRUE : FALSE));
    return out;
  }

  /**
   * {@code headers} with the event's class in {@code sluice-priority}, unless it is the default:
   * the relay reads it to return a high event to its ready topic ({@code ReadyTopic}).
   */
  static Headers withPriority(Headers headers, Priority priority) {
    byte[] value = PRIORITIES.get(priority);
    if (value != null) {
      headers.add(new RecordHeader(HeaderNames.PRIORITY, value));
    }
    return headers;
  }

  /** {@code headers} with the gate's expected time at the provider, if it has one (&ge; 0). */
  static Headers withEta(Headers headers, long etaMillis) {
    if (etaMillis >= 0) {
      headers.add(new RecordHeader(HeaderNames.ETA, decimal(etaMillis)));
    }
    return headers;
  }

  private static boolean isRouting(String key) {
    // Cheap first: the names all start with Sluice's prefix (most of a producer's do not).
    if (!key.startsWith(HeaderNames.PREFIX)) {
      return false;
    }
    for (String name : ROUTING) {
      if (name.equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** A decimal, as {@code Long.toString} writes it (what {@code HeaderValues.lastLong} reads). */
  static byte[] decimal(long value) {
    return Long.toString(value).getBytes(UTF_8);
  }

  /**
   * The current millisecond's {@link #decimal}, encoded once for all the events of that
   * millisecond (a busy task writes dozens in one): one per limit step, on its stream thread.
   */
  static final class Now {
    private long millis;
    private byte[] decimal;

    byte[] decimal(long nowMillis) {
      if (decimal == null || nowMillis != millis) {
        decimal = OutgoingHeaders.decimal(nowMillis);
        millis = nowMillis;
      }
      return decimal;
    }
  }
}
