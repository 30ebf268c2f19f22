package io.sluice.dispatcher.bench;

import io.sluice.embedded.InJvmKafkaBroker;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.config.ConfigLoader;
import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.topology.gate.Gate;
import io.sluice.topology.gate.GateListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * Gate throughput, next to a bare pass-through topology measured in the same run on the same
 * broker: both read the same pre-loaded inbound topic with {@code exactly_once_v2} and the same
 * number of stream threads; the figure is output records per second between the first and the
 * last output record (so start-up and rebalancing are left out).
 *
 * <p>Runs: pass-through; the gate with leases (the default); the gate with leases off (one Redis
 * round trip per event), to show what leases buy. Usage:
 * {@code mvn -q -pl dispatcher exec:java -Dexec.args="[events] [tenants] [threads]"}.
 */
public final class GateBench {
  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int tenants = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int partitions = 4;
    try (KafkaBroker broker = InJvmKafkaBroker.start(); RedisServerProcess redis = RedisServerProcess.start()) {
      System.out.printf("gate bench: %d events, %d tenants, %d stream threads, %d partitions, %d cores%n",
          events, tenants, threads, partitions, Runtime.getRuntime().availableProcessors());
      String yaml = """
          ladder: [1s, 5s, 30s]
          reservationHorizon: 30s
          tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }
          defaultTier: free
          providers:
            bench-api:
              url: http://localhost:8081/
              rate: 100000/s
              quotas:
                enterprise: { capacity: 1000, refill: 1000/s }
                pro: { capacity: 1000, refill: 1000/s }
                free: { capacity: 1000, refill: 1000/s }
          """;
      // Over their rate: a tenth as many tenants, each at 20/s with a burst of 20, receive events
      // far faster than that, so most are reservations (a 30 s horizon holds 600 more units per
      // tenant) or, beyond it, queued: the case leases are for.
      String overLimit = yaml.replace("capacity: 1000, refill: 1000/s", "capacity: 20, refill: 20/s");
      int fewTenants = Math.max(1, tenants / 10);
      Map<String, String> noLeases = Map.of("SLUICE_GATE__MAX_LEASE", "0");
      // Warm-up, not a result: the first gate run in a JVM also pays for JIT compilation of the
      // gate, Lettuce and Jackson (on 2 cores the compiler threads take a core from the gate), so
      // whichever row came first measured low. Both kinds of topology run once, unreported.
      run("warm-up: pass-through", broker, redis, yaml, events / 4, tenants, threads, partitions, null);
      run("warm-up: gate", broker, redis, yaml, events / 4, tenants, threads, partitions, Map.of());
      System.out.println("(warm-up done; the rows below are the results)");
      List<String> rows = new ArrayList<>();
      rows.add(run("pass-through", broker, redis, yaml, events, tenants, threads, partitions, null));
      rows.add(run("gate, tenants within quota, leases", broker, redis, yaml, events, tenants, threads, partitions, Map.of()));
      rows.add(run("gate, tenants within quota, no leases", broker, redis, yaml, events, tenants, threads, partitions, noLeases));
      rows.add(run("gate, tenants over quota, leases", broker, redis, overLimit, events, fewTenants, threads, partitions, Map.of()));
      rows.add(run("gate, tenants over quota, no leases", broker, redis, overLimit, events, fewTenants, threads, partitions, noLeases));
      System.out.println();
      System.out.println("| topology | events/s | Redis calls per event |");
      System.out.println("|---|---|---|");
      rows.forEach(System.out::println);
    }
  }

  private static String run(
      String name, KafkaBroker broker, RedisServerProcess redis, String yaml, int events, int tenants,
      int threads, int partitions, Map<String, String> gateEnv) throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env = new HashMap<>(gateEnv == null ? Map.of() : gateEnv);
    env.put("SLUICE_KAFKA__BOOTSTRAP", broker.bootstrapServers());
    env.put("SLUICE_KAFKA__TOPIC_PREFIX", "b" + unique + ".");
    env.put("SLUICE_REDIS__URI", redis.uri());
    env.put("SLUICE_GATE__APPLICATION_ID", "bench-" + unique);
    env.put("SLUICE_GATE__STREAM_THREADS", Integer.toString(threads));
    SluiceConfig config = ConfigLoader.parse(yaml, env);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    broker.createTopics(topics.partitionCounts(partitions, partitions));
    preload(broker, topics, events, tenants);

    LongAdder redisCalls = new LongAdder();
    AutoCloseable running;
    if (gateEnv == null) {
      running = passThrough(broker, topics, threads, unique);
    } else {
      Gate gate = Gate.start(config, new GateListener() {
        @Override
        public void redisCall(String provider, long nanos) {
          redisCalls.increment();
        }
      }, Map.of());
      running = gate;
    }
    double perSecond;
    try (running) {
      perSecond = measure(broker, topics, events);
    }
    String row = String.format("| %s | %,.0f | %.3f |", name, perSecond, redisCalls.sum() / (double) events);
    System.out.println(row);
    return row;
  }

  private static void preload(KafkaBroker broker, Topics topics, int events, int tenants) {
    Map<String, Object> p = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ProducerConfig.LINGER_MS_CONFIG, 20,
        // Loading input only: a retried batch after a leader change must not wedge the producer.
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
        ProducerConfig.ACKS_CONFIG, "1",
        ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < events; i++) {
        String tenant = "tenant-" + (i % tenants);
        String json = "{\"id\":\"e" + i + "\",\"tenant\":\"" + tenant
            + "\",\"provider\":\"bench-api\",\"payload\":{\"order\":" + i + ",\"amount\":1999}}";
        producer.send(new ProducerRecord<>(topics.inbound(), tenant.getBytes(StandardCharsets.UTF_8),
            json.getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  private static AutoCloseable passThrough(KafkaBroker broker, Topics topics, int threads, String unique) {
    Topology t = new Topology();
    t.addSource("in", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.inbound());
    t.addSink("out", topics.ready(), new ByteArraySerializer(), new ByteArraySerializer(), "in");
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "pass-" + unique);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
    props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 1000);
    KafkaStreams streams = new KafkaStreams(t, props);
    streams.start();
    return () -> streams.close(Duration.ofSeconds(30));
  }

  /** Output records per second, from the first to the last of {@code events} outputs. */
  private static double measure(KafkaBroker broker, Topics topics, int events) {
    List<String> outputs = new ArrayList<>(topics.delays());
    outputs.add(topics.ready());
    outputs.add(topics.dlq());
    Map<String, Object> c = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "measure-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
    long seen = 0;
    long firstBatch = 0;
    long first = 0;
    long last = 0;
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(outputs);
      while (seen < events) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("only " + seen + " of " + events + " outputs within 10 minutes");
        }
        int n = consumer.poll(Duration.ofMillis(100)).count();
        if (n > 0) {
          long now = System.nanoTime();
          if (seen == 0) {
            first = now;
            firstBatch = n;
          }
          seen += n;
          last = now;
        }
      }
    }
    return (seen - firstBatch) / ((last - first) / 1e9);
  }
}
