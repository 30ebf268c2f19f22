package io.sluice.lab.demo;

import io.sluice.config.KafkaConfig;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces the demo's events to {@code sluice.inbound} on its own thread: the steady load every
 * 100 ms, the burst in the second a quarter of the way in, and five malformed events at the
 * start (each one a different dead-letter reason).
 */
final class LoadGenerator implements Runnable {
  private final DemoScenario scenario;
  private final KafkaProducer<byte[], byte[]> producer;
  private final String inbound;
  private final AtomicLong produced = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile boolean done;

  LoadGenerator(DemoScenario scenario, KafkaConfig kafka, String inbound) {
    this.scenario = scenario;
    this.inbound = inbound;
    this.producer = new KafkaProducer<>(kafka.clientProperties(Map.of(
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, 5,
        // KAFKA-15591: see DispatcherClients.producer.
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  long produced() {
    return produced.get();
  }

  boolean done() {
    return done;
  }

  void stop() {
    stop.set(true);
  }

  @Override
  public void run() {
    try {
      malformed();
      long start = System.nanoTime();
      long tickNanos = Duration.ofMillis(100).toNanos();
      long ticks = scenario.duration().toNanos() / tickNanos;
      long burstTick = ticks / 4;
      Map<String, String> tenants = scenario.tenants();
      double[] owed = new double[tenants.size()];
      long seq = 0;
      for (long tick = 0; tick < ticks && !stop.get(); tick++) {
        // Paced against the start, not the previous tick, so the load does not drift.
        LockSupport.parkNanos(start + tick * tickNanos - System.nanoTime());
        int i = 0;
        for (Map.Entry<String, String> t : tenants.entrySet()) {
          owed[i] += scenario.offeredPerTenant(t.getValue()) * 0.1;
          while (owed[i] >= 1) {
            owed[i] -= 1;
            send(t.getKey(), "ev-" + (seq++), 1, null);
          }
          i++;
        }
        if (tick >= burstTick && tick < burstTick + 10) {
          // The burst: ten times the provider's rate over one second, spread over every tenant.
          long perTick = Math.round(scenario.rate());
          List<String> names = new ArrayList<>(tenants.keySet());
          for (long k = 0; k < perTick; k++) {
            send(names.get((int) (k % names.size())), "burst-" + (seq++), 1, null);
          }
        }
      }
      producer.flush();
    } finally {
      producer.close(Duration.ofSeconds(10));
      done = true;
    }
  }

  /** One of each: not JSON, unknown provider, bad cost, oversize payload, past deadline. */
  private void malformed() {
    raw("acme", "{\"id\": \"broken-1\", \"tenant\": ".getBytes(UTF_8));
    raw("enterprise-1", ("{\"id\":\"bad-provider-1\",\"tenant\":\"enterprise-1\","
        + "\"provider\":\"no-such-api\",\"payload\":{}}").getBytes(UTF_8));
    raw("pro-1", ("{\"id\":\"bad-cost-1\",\"tenant\":\"pro-1\",\"provider\":\""
        + DemoScenario.PROVIDER + "\",\"cost\":0,\"payload\":{}}").getBytes(UTF_8));
    raw("free-1", ("{\"id\":\"oversize-1\",\"tenant\":\"free-1\",\"provider\":\""
        + DemoScenario.PROVIDER + "\",\"payload\":{\"blob\":\"" + "x".repeat(5000) + "\"}}")
        .getBytes(UTF_8));
    send("free-2", "expired-1", 1, Instant.now().minusSeconds(60).toString());
  }

  private void send(String tenant, String id, int cost, String deadline) {
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
        + DemoScenario.PROVIDER + "\",\"cost\":" + cost
        + (deadline == null ? "" : ",\"deadline\":\"" + deadline + "\"")
        + ",\"path\":\"orders/" + id + "\",\"attributes\":{\"X-Request-Id\":\"" + id + "\"}"
        + ",\"payload\":{\"order\":\"" + id + "\",\"amount\":12.50}}";
    raw(tenant, json.getBytes(UTF_8));
  }

  private void raw(String key, byte[] value) {
    producer.send(new ProducerRecord<>(inbound, key.getBytes(UTF_8), value));
    produced.incrementAndGet();
  }
}
