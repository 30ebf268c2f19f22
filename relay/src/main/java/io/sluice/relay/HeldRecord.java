package io.sluice.relay;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.header.Headers;

/**
 * What the relay needs of a record on a delay topic, checked: when it may leave and where it goes,
 * or a sentence saying why it cannot be relayed. Pure.
 *
 * <p>Delay topics are internal, but anything can be written into them (a DLQ replay, a producer
 * pointed at the wrong topic, a forged header). The relay must neither die on such a record nor
 * send it anywhere a header says: a record is relayed only with a non-negative decimal
 * {@code sluice-not-before}, a value, and a {@code sluice-return-to} naming a topic Sluice returns
 * records to. Anything else is dead-lettered ({@code invalid}) with this sentence, and the
 * partition goes on.
 *
 * <p>A null key is not refused: the gate keeps the key a producer gave an inbound record, and may
 * place a valid, paid event without one on the ladder; returning it unkeyed loses nothing.
 *
 * @param notBefore epoch ms before which the record must not leave; valid only when problem is null
 * @param returnTo  the topic it returns to; valid only when problem is null
 * @param problem   why the record cannot be relayed, or null when it can
 */
record HeldRecord(long notBefore, String returnTo, String problem) {

  static HeldRecord read(Headers headers, byte[] value, Set<String> returnTopics) {
    if (value == null) {
      return invalid("the record has no value (a tombstone): there is no event to return");
    }
    Optional<String> notBefore = HeaderValues.last(headers, HeaderNames.NOT_BEFORE);
    if (notBefore.isEmpty()) {
      return invalid("no " + HeaderNames.NOT_BEFORE + " header: the relay cannot tell when it may leave");
    }
    Optional<Long> millis = HeaderValues.lastLong(headers, HeaderNames.NOT_BEFORE);
    if (millis.isEmpty()) {
      return invalid(HeaderNames.NOT_BEFORE + " is '" + shorten(notBefore.get()) + "', not epoch milliseconds");
    }
    if (millis.get() < 0) {
      return invalid(HeaderNames.NOT_BEFORE + " is " + millis.get() + ", before the epoch");
    }
    Optional<String> returnTo = HeaderValues.last(headers, HeaderNames.RETURN_TO);
    if (returnTo.isEmpty() || returnTo.get().isBlank()) {
      return invalid("no " + HeaderNames.RETURN_TO + " header: the relay cannot tell where it belongs");
    }
    if (!returnTopics.contains(returnTo.get())) {
      return invalid(HeaderNames.RETURN_TO + " names '" + shorten(returnTo.get())
          + "', not a topic Sluice returns records to " + new TreeSet<>(returnTopics));
    }
    return new HeldRecord(millis.get(), returnTo.get(), null);
  }

  boolean valid() {
    return problem == null;
  }

  private static HeldRecord invalid(String problem) {
    return new HeldRecord(-1, null, problem);
  }

  /** A header value quoted in a detail: at most 100 characters, so a huge forged header stays out of logs. */
  private static String shorten(String text) {
    return text.length() <= 100 ? text : text.substring(0, 100) + "...";
  }
}
