package io.sluice.gate;

import io.sluice.config.KafkaConfig;
import io.sluice.schemas.topic.Topics;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Utils;

/**
 * How large a record the gate may write, and how large a record is on the wire.
 *
 * <p>The gate dead-letters whatever a producer managed to write to {@code sluice.inbound},
 * however large: up to the broker's {@code message.max.bytes} (1,048,588 bytes by default). Its
 * dead letter is that record plus Sluice's headers (reason, detail, source, first-seen: well
 * under a KiB), so with Kafka's defaults everywhere the dead letter of a value near the broker's
 * limit is too large for the producer and for the topic, and the transaction that carries it
 * aborts, again and again. So the dead-letter topic accepts {@link #MAX_RECORD_BYTES} (the
 * broker default plus 64 KiB) and the gate's producer sends records up to that size. Anything
 * larger still (a broker configured for bigger records, a topic created by hand) is handled by
 * {@link TooLargeOutputs}: dead-lettered without its value.
 */
public final class OutputLimits {
  /** Kafka's default {@code message.max.bytes} (the topic contract's, {@link Topics}). */
  public static final int BROKER_DEFAULT_MAX_MESSAGE_BYTES = Topics.BROKER_DEFAULT_MAX_MESSAGE_BYTES;
  /**
   * The dead-letter topic's {@code max.message.bytes} ({@link Topics#DLQ_MAX_MESSAGE_BYTES}) and
   * the gate producer's {@code max.request.size}.
   */
  public static final int MAX_RECORD_BYTES = Topics.DLQ_MAX_MESSAGE_BYTES;

  /**
   * The gate producer's {@code max.request.size}: {@link #MAX_RECORD_BYTES}, or more when
   * {@code kafka.properties} raises {@code max.request.size} (and with it the largest
   * {@code gate.maxPayloadBytes} the configuration accepts): the value of an accepted event plus
   * 64 KiB for Sluice's headers must always fit, or a valid, charged event would be dead-lettered
   * without its value.
   */
  public static int maxRecordBytes(KafkaConfig kafka) {
    return Math.max(MAX_RECORD_BYTES, kafka.maxRequestSize() + 64 * 1024);
  }

  /** A record batch's fixed header (v2). */
  private static final int BATCH_OVERHEAD = 61;
  /** The varints of one record: length, attributes, timestamp and offset deltas, key and value lengths, header count, at their largest. */
  private static final int RECORD_OVERHEAD = 5 + 1 + 10 + 5 + 5 + 5 + 5;
  /** The two length varints of one header, at their largest. */
  private static final int HEADER_OVERHEAD = 5 + 5;

  private OutputLimits() {}

  /**
   * An upper bound of the bytes a batch holding only this record takes, uncompressed: what the
   * producer compares with {@code max.request.size} and the broker with {@code max.message.bytes}
   * (both use a bound of this kind, never larger than this one).
   */
  public static int upperBound(byte[] key, byte[] value, Headers headers) {
    long size = BATCH_OVERHEAD + RECORD_OVERHEAD
        + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    if (headers != null) {
      for (Header h : headers) {
        size += HEADER_OVERHEAD + Utils.utf8Length(h.key())
            + (h.value() == null ? 0 : h.value().length);
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, size);
  }
}
