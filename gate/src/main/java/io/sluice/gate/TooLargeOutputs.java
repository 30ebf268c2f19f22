package io.sluice.gate;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure no record the gate writes can be too large for Kafka, so that no inbound record can
 * stall its partition.
 *
 * <p>Why this is not the production exception handler's job alone: under {@code exactly_once_v2}
 * any failed send, whatever the handler answers, puts the producer's transaction in an abortable
 * error (KafkaProducer does so for a record it refuses itself, the Sender for one the broker
 * refuses). The transaction aborts, the task reads the same inbound record again, builds the same
 * output, and fails the same way, for ever. The only way out is to write something else the next
 * time. So each output passes here on its way into the producer ({@link TooLargeOutputInterceptor})
 * and is replaced by a dead letter without its value when
 * <ul>
 *   <li>it is larger than the gate's producer sends ({@code max.request.size}) or than its topic
 *       accepts ({@code max.message.bytes}, read from the broker: {@link TopicLimits}), known
 *       before sending; nothing fails, nothing aborts; or
 *   <li>Kafka refused an identical record before (a topic whose {@code max.message.bytes} is
 *       lower than the producer's limit): {@link TooLargeOutputHandler} remembered it, the
 *       transaction aborted, and the record comes back here on the second try.
 * </ul>
 *
 * <p>A dead letter without its value is never a silent drop: it keeps the key, the headers
 * (event id, first-seen, source, the original reason if it was a dead letter already) and says in
 * its detail how many bytes were dropped and why. Reason: the original dead letter's, else
 * {@code invalid} (the event itself is too large to carry). If the key and headers alone are
 * still too large, the producer's own headers go next (Sluice's stay), then the key.
 *
 * <p>One instance per gate, shared by its producers' interceptors and its exception handler
 * through the Streams configuration ({@link #CONFIG}). Thread-safe.
 */
public final class TooLargeOutputs {
  /** The configuration key under which the gate hands this instance to its producer's plugins. */
  public static final String CONFIG = "sluice.gate.too-large-outputs";
  private static final Logger LOG = LoggerFactory.getLogger(TooLargeOutputs.class);
  /** Refusals remembered (a topic's limit lowered while the gate runs); more than a handful would be a misconfigured topic, logged loudly each time. */
  private static final int REMEMBERED = 1024;

  private final String deadLetterTopic;
  private final int maxRecordBytes;
  /**
   * The shortest value among the refusals: shorter records are never hashed (most of them), and
   * never take the lock (written under it, read by every record of every stream thread's
   * producer without it; while nothing was refused it is {@code Integer.MAX_VALUE}).
   */
  private volatile int shortestRefusedValue = Integer.MAX_VALUE;
  private final Map<Fingerprint, String> refused = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Fingerprint, String> eldest) {
      return size() > REMEMBERED;
    }
  };

  private final List<String> outputTopics;
  /** Set and cleared under the lock, read by every record without it. */
  private volatile TopicLimits topicLimits;
  private int users;

  /**
   * @param deadLetterTopic where records that cannot be written go instead
   * @param maxRecordBytes  the gate producer's {@code max.request.size}
   * @param outputTopics    the topics the gate writes, whose limits are read together
   */
  public TooLargeOutputs(String deadLetterTopic, int maxRecordBytes, List<String> outputTopics) {
    this.deadLetterTopic = deadLetterTopic;
    this.maxRecordBytes = maxRecordBytes;
    this.outputTopics = List.copyOf(outputTopics);
  }

  /**
   * A producer of the gate starts using this: the topics' limits will be read from the broker
   * with its connection settings, once, on first need.
   */
  synchronized void open(Map<String, ?> producerConfigs) {
    if (users++ == 0) {
      topicLimits = TopicLimits.fromBroker(outputTopics, producerConfigs);
    }
  }

  /** For tests: limits read some other way than from a broker. */
  synchronized void open(TopicLimits limits) {
    users++;
    topicLimits = limits;
  }

  /** A producer of the gate is closed; the last one closes the connection used to read limits. */
  synchronized void release() {
    if (--users == 0 && topicLimits != null) {
      topicLimits.close();
      topicLimits = null;
    }
  }

  /** The most bytes a record for {@code topic} may take: the producer's limit and the topic's. */
  private int limitFor(String topic) {
    TopicLimits limits = topicLimits;
    return limits == null ? maxRecordBytes : Math.min(maxRecordBytes, limits.of(topic));
  }

  /** The record itself, or its dead letter without the value if it cannot be written. */
  public ProducerRecord<byte[], byte[]> sendable(ProducerRecord<byte[], byte[]> record) {
    Optional<String> why = refusal(record);
    if (why.isEmpty()) {
      return record;
    }
    LOG.warn("gate: a record for {} cannot be written ({}); dead-lettering it without its value",
        record.topic(), why.get());
    return deadLetterWithoutValue(record, why.get(), null);
  }

  /** Why the record cannot be written, if it cannot. */
  Optional<String> refusal(ProducerRecord<byte[], byte[]> record) {
    int size = OutputLimits.upperBound(record.key(), record.value(), record.headers());
    if (size > maxRecordBytes) {
      return Optional.of("the record takes up to " + size + " bytes, more than the gate's producer "
          + "sends (max.request.size " + maxRecordBytes + ")");
    }
    int topicLimit = limitFor(record.topic());
    if (size > topicLimit) {
      return Optional.of("the record takes up to " + size + " bytes, more than " + record.topic()
          + " accepts (max.message.bytes " + topicLimit + ")");
    }
    int valueLength = record.value() == null ? -1 : record.value().length;
    if (valueLength < shortestRefusedValue) {
      return Optional.empty();
    }
    synchronized (refused) {
      return Optional.ofNullable(refused.get(Fingerprint.of(record)));
    }
  }

  /** Remembers that Kafka refused this record, so that the same record is not sent again. */
  void remember(ProducerRecord<byte[], byte[]> record, String why) {
    synchronized (refused) {
      refused.put(Fingerprint.of(record), why);
      shortestRefusedValue = Math.min(shortestRefusedValue, record.value() == null ? -1 : record.value().length);
    }
  }

  /**
   * The record's dead letter without its value (and, if that is not enough, without the
   * producer's headers, then without its key).
   *
   * @param source where the event was read ({@code topic-partition@offset}) if known and the
   *               record does not say already; may be null
   */
  ProducerRecord<byte[], byte[]> deadLetterWithoutValue(
      ProducerRecord<byte[], byte[]> record, String why, String source) {
    Headers headers = new RecordHeaders(record.headers() == null ? new Header[0] : record.headers().toArray());
    boolean wasDeadLetter = record.topic().equals(deadLetterTopic)
        && HeaderValues.last(headers, HeaderNames.REASON).isPresent();
    String reason = wasDeadLetter
        ? HeaderValues.last(headers, HeaderNames.REASON).orElseThrow()
        : Reason.INVALID.code();
    String before = wasDeadLetter
        ? HeaderValues.last(headers, HeaderNames.DETAIL).map(d -> d + "; ").orElse("")
        : "";
    int valueBytes = record.value() == null ? 0 : record.value().length;
    StringBuilder dropped = new StringBuilder("its value of " + valueBytes + " bytes");
    String recordSource = HeaderValues.last(headers, HeaderNames.SOURCE).orElse(source);
    byte[] key = record.key();
    int limit = limitFor(deadLetterTopic);
    if (OutputLimits.upperBound(key, null, headers) > limit) {
      Headers own = new RecordHeaders();
      int producerHeaderBytes = 0;
      for (Header h : headers) {
        if (HeaderNames.isSluice(h.key())) {
          own.add(h);
        } else {
          producerHeaderBytes += h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
      }
      headers = own;
      dropped.append(", its producer's headers (").append(producerHeaderBytes).append(" bytes)");
      if (OutputLimits.upperBound(key, null, headers) > limit) {
        dropped.append(", its key (").append(key == null ? 0 : key.length).append(" bytes)");
        key = null;
      }
    }
    String detail = before + "dead-lettered without " + dropped + ": " + why
        + (recordSource == null ? "" : "; read at " + recordSource);
    // The event's id goes with it (a dead letter already carries its own): without the value,
    // the id is what names the event to the one who looks for it (and to verify).
    String eventId = wasDeadLetter ? null : idIn(record.value());
    new DeadLetter(reason, detail, recordSource, eventId, null, null).writeTo(headers);
    return new ProducerRecord<>(deadLetterTopic, null, record.timestamp(), key, null, headers);
  }

  /**
   * The top-level string {@code id} of a JSON object, read by streaming (the value is large, by
   * definition here) and skipping every nested structure; null if there is none or the bytes are
   * not such an object.
   */
  static String idIn(byte[] value) {
    if (value == null) {
      return null;
    }
    try (JsonParser p = Json.mapper().getFactory().createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean isId = "id".equals(p.currentName());
        JsonToken v = p.nextToken();
        if (isId) {
          return v == JsonToken.VALUE_STRING ? p.getText() : null;
        }
        p.skipChildren();
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Identifies a record refused by Kafka well enough to recognise it when it is built again. */
  private record Fingerprint(String topic, int keyLength, int keyHash, int valueLength, int valueHash) {
    static Fingerprint of(ProducerRecord<byte[], byte[]> r) {
      return new Fingerprint(r.topic(),
          r.key() == null ? -1 : r.key().length, Arrays.hashCode(r.key()),
          r.value() == null ? -1 : r.value().length, Arrays.hashCode(r.value()));
    }
  }
}
