package io.sluice.lab.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces work events to a run's inbound topic, keyed by tenant, each of cost 1. The payload
 * carries the tenant and the {@code System.nanoTime()} of the send, so the mock provider's log of
 * arrivals (same JVM, same clock) gives end-to-end latency and per-tenant shares:
 * {@code {"t":"<tenant>","sent":<nanos>}}.
 */
final class EventLoad implements AutoCloseable {
  private final KafkaProducer<byte[], byte[]> producer;
  private final String inbound;
  private long sequence;

  /** @param bulk batch hard for throughput (pre-loading), else send each event promptly */
  EventLoad(SluiceConfig config, boolean bulk) {
    Map<String, Object> own = bulk
        ? Map.of(ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024,
            ProducerConfig.ACKS_CONFIG, "1",
            // Loading input only: a retried batch after a leader change must not wedge it.
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)
        : Map.of(ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all");
    this.producer = new KafkaProducer<>(config.kafka().clientProperties(own),
        new ByteArraySerializer(), new ByteArraySerializer());
    this.inbound = new Topics(config.kafka().topicPrefix(), config.ladder()).inbound();
  }

  /** One event of {@code tenant}. */
  void send(String tenant) {
    long id = sequence++;
    String json = "{\"id\":\"e" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
        + BenchConfig.PROVIDER + "\",\"cost\":1,\"payload\":{\"t\":\"" + tenant + "\",\"sent\":"
        + System.nanoTime() + "}}";
    producer.send(new ProducerRecord<>(inbound, tenant.getBytes(UTF_8), json.getBytes(UTF_8)));
  }

  /** One event of {@code tenant} costing {@code cost} (the provider sees it as {@code Sluice-Cost}). */
  void send(String tenant, int cost) {
    long id = sequence++;
    String json = "{\"id\":\"e" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
        + BenchConfig.PROVIDER + "\",\"cost\":" + cost + ",\"payload\":{\"t\":\"" + tenant
        + "\",\"sent\":" + System.nanoTime() + "}}";
    producer.send(new ProducerRecord<>(inbound, tenant.getBytes(UTF_8), json.getBytes(UTF_8)));
  }

  /** Waits until every event sent is acknowledged. */
  void flush() {
    producer.flush();
  }

  /** {@code events} events as fast as the producer takes them, event i of {@code tenantOf(i)}. */
  void preload(long events, LongFunction<String> tenantOf) {
    for (long i = 0; i < events; i++) {
      send(tenantOf.apply(i));
    }
    producer.flush();
  }

  /**
   * {@code perSecond} events a second for {@code seconds}, paced in 10 ms ticks against the start
   * (so the load does not drift), event i of {@code tenantOf(i)}. Returns the events sent.
   */
  long paced(double perSecond, double seconds, LongFunction<String> tenantOf) {
    long tick = Duration.ofMillis(10).toNanos();
    long ticks = Math.round(seconds * 100);
    long start = System.nanoTime();
    long sent = 0;
    for (long t = 1; t <= ticks; t++) {
      LockSupport.parkNanos(start + t * tick - System.nanoTime());
      long due = Math.round(perSecond * t / 100.0);
      while (sent < due) {
        send(tenantOf.apply(sent++));
      }
    }
    producer.flush();
    return sent;
  }

  /** The tenant in a payload this class wrote (as the provider received it). */
  static String tenantOf(byte[] payload) {
    String s = new String(payload, UTF_8);
    int from = s.indexOf("\"t\":\"") + 5;
    return s.substring(from, s.indexOf('"', from));
  }

  /** The send time in a payload this class wrote. */
  static long sentNanosOf(byte[] payload) {
    String s = new String(payload, UTF_8);
    int from = s.indexOf("\"sent\":") + 7;
    int to = from;
    while (to < s.length() && (Character.isDigit(s.charAt(to)) || s.charAt(to) == '-')) {
      to++;
    }
    return Long.parseLong(s.substring(from, to));
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(10));
  }
}
