package io.sluice.schemas.topic;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A producer interceptor that stamps every record with {@link HeaderNames#WRITER}: the producer's
 * {@code transactional.id}, replacing whatever such header the record carried (one copied from
 * its input, or forged). Without a transactional id the header is removed.
 *
 * <p>Why: a Kafka consumer does not say which producer wrote a record, and the hanging-transaction
 * sweeper must write again the records of one transaction before aborting it; with the stamp it
 * writes again only those, not the whole partition after them (an unstamped record was written
 * with no transaction: readable whatever the hanging one's end, so never written again).
 *
 * <p>Set with {@code interceptor.classes} (Kafka Streams: {@code producer.interceptor.classes});
 * the producer hands its own configuration, {@code transactional.id} included, to {@link
 * #configure}. The record is copied with fresh headers: Kafka Streams may send one headers object
 * twice, and a sent record's headers are read-only.
 */
public final class WriterStamp implements ProducerInterceptor<Object, Object> {
  private byte[] writer;

  @Override
  public void configure(Map<String, ?> configs) {
    Object id = configs.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    writer = id == null ? null : id.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : record.headers()) {
      if (!HeaderNames.WRITER.equalsIgnoreCase(h.key())) {
        headers.add(h);
      }
    }
    if (writer != null) {
      headers.add(HeaderNames.WRITER, writer);
    }
    return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(),
        record.key(), record.value(), headers);
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
  }

  @Override
  public void close() {
  }
}
