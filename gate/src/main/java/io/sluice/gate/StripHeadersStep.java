package io.sluice.gate;

import io.sluice.schemas.topic.HeaderNames;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The trust boundary: the first step after {@code inbound}, which producers write. Every
 * {@code sluice-*} header there (in any case) was written by a producer, not by Sluice, and is
 * removed before any other step reads the record: a forged {@code sluice-ticket} would skip the
 * horizon check, a forged {@code sluice-attempt} would shorten or lengthen the retries, a forged
 * {@code sluice-event-id} on a malformed value would let {@code verify} count an id that was never
 * sent, a forged {@code sluice-first-seen}, {@code sluice-tier} or routing header would reach the
 * dead letter or the dispatcher as if Sluice had written it.
 *
 * <p>Sluice's own returns (queued events, events held back while Redis was down) come back on
 * {@code regate}, which producers cannot write and which does not pass through this step; there
 * the headers are Sluice's and are believed. Other headers (tracing, the producer's own) pass
 * untouched. A record without a {@code sluice-*} header is forwarded as it is, with no copy.
 */
final class StripHeadersStep {
  private StripHeadersStep() {}

  /** The record without its {@code sluice-*} headers: itself when it has none. */
  static Record<byte[], byte[]> strip(Record<byte[], byte[]> record) {
    return hasSluiceHeader(record.headers()) ? record.withHeaders(stripped(record.headers())) : record;
  }

  private static boolean hasSluiceHeader(Headers headers) {
    for (Header h : headers) {
      if (HeaderNames.isSluice(h.key())) {
        return true;
      }
    }
    return false;
  }

  /** A new header list without Sluice's names; the record's own list is left as it was read. */
  static Headers stripped(Headers headers) {
    RecordHeaders kept = new RecordHeaders();
    for (Header h : headers) {
      if (!HeaderNames.isSluice(h.key())) {
        kept.add(h);
      }
    }
    return kept;
  }
}
