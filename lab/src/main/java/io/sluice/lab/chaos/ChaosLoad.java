package io.sluice.lab.chaos;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces the events of a chaos run to {@code sluice.inbound} with a plain Kafka producer, evenly
 * over the load period, across the scenario's tenants and providers; during a hot spell (from 25%
 * to 30% of the period) half of them go to one free tenant, so its bucket defers. Records the ids
 * the broker acknowledged: those are the ids that must not be lost.
 */
final class ChaosLoad implements Runnable {
  private final String bootstrap;
  private final String topic;
  private final int events;
  private final long loadMillis;
  private final long startMillis;
  private final Random random;
  private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
  /** Each event's tenant and provider, by id: {@code tenant/provider}. */
  private final Map<String, String> destinations = new ConcurrentHashMap<>();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean stopped;

  ChaosLoad(String bootstrap, String topic, int events, long loadMillis, long startMillis,
      long seed) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.events = events;
    this.loadMillis = loadMillis;
    this.startMillis = startMillis;
    this.random = new Random(seed);
  }

  @Override
  public void run() {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all",
        // Not idempotent, one request in flight: in trial runs the idempotent producer got stuck
        // retrying one batch with OUT_OF_ORDER_SEQUENCE_NUMBER for minutes. A retried batch the
        // broker had already written is a duplicate inbound record (Sluice delivers it twice, as
        // at least once allows); the report counts such ids apart.
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
        ProducerConfig.LINGER_MS_CONFIG, 5,
        // Through a broker restart: keep retrying rather than give an event up.
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000,
        ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < events && !stopped; i++) {
        long due = startMillis + loadMillis * i / events;
        long wait = due - System.currentTimeMillis();
        if (wait > 0) {
          Thread.sleep(wait); // pacing the load, not synchronisation
        }
        long elapsed = System.currentTimeMillis() - startMillis;
        boolean hot = elapsed >= loadMillis / 4 && elapsed < loadMillis * 3 / 10;
        String tenant = hot && random.nextBoolean() ? ChaosScenario.HOT_TENANT
            : ChaosScenario.TENANT_NAMES.get(random.nextInt(ChaosScenario.TENANT_NAMES.size()));
        String provider = ChaosScenario.PROVIDER_NAMES.get(i % ChaosScenario.PROVIDER_NAMES.size());
        String id = String.format("chaos-%06d", i);
        destinations.put(id, tenant + "/" + provider);
        String value = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
            + provider + "\",\"payload\":{\"n\":" + i + "}}";
        producer.send(new ProducerRecord<>(topic, tenant.getBytes(StandardCharsets.UTF_8),
            value.getBytes(StandardCharsets.UTF_8)), (meta, error) -> {
              if (error == null) {
                acknowledged.add(id);
              } else {
                failed.incrementAndGet();
              }
            });
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void stop() {
    stopped = true;
  }

  Set<String> acknowledged() {
    return Set.copyOf(acknowledged);
  }

  /** Each event's {@code tenant/provider}, by id. */
  Map<String, String> destinations() {
    return Map.copyOf(destinations);
  }

  long failed() {
    return failed.get();
  }
}
