package io.sluice.lab.bench;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.LongFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * Throughput of the gate, or of a bare pass-through topology with the same guarantee
 * ({@code exactly_once_v2}), threads and partitions, over a pre-loaded inbound topic: output
 * records per second between the first and the last output record, read committed, so start-up
 * and rebalancing are left out. Outputs are counted on every topic the gate writes (ready, the
 * delay steps, the dead letters).
 */
final class GateThroughput {
  /** One measured run; the gate's tallies are zero for the pass-through. */
  record Result(double eventsPerSecond, long events, long decided, long deferred,
      long redisCalls, long admitted, CpuSnapshot.PerEvent cpu) {
    double redisCallsPerEvent() {
      return redisCalls / (double) events;
    }

    double deferredShare() {
      return decided == 0 ? 0 : deferred / (double) decided;
    }
  }

  private GateThroughput() {}

  /** The gate configured by {@code spec}, event i of {@code tenantOf(i)}. */
  static Result gate(BenchContext ctx, BenchConfig spec, int partitions, long events,
      LongFunction<String> tenantOf) throws Exception {
    SluiceConfig config = spec.load(ctx, BenchContext.unique("tp"));
    BenchPipeline.createTopics(config, partitions);
    try {
      preload(config, events, tenantOf);
      GateTally tally = new GateTally();
      try (AutoCloseable gate = Gate.start(config, tally, Map.of())) {
        Measured m = measure(ctx, config, events, config.gate().streamThreads());
        return new Result(m.eventsPerSecond(), events, tally.decided.sum(),
            tally.reserved.sum() + tally.queued.sum(), tally.redisCalls.sum(),
            tally.admitted.sum(), m.cpu());
      }
    } finally {
      BenchPipeline.deleteTopics(config);
    }
  }

  /** Source to sink, bytes untouched, with the gate's guarantee and thread count. */
  static Result passThrough(BenchContext ctx, int threads, int partitions, long events,
      LongFunction<String> tenantOf) throws Exception {
    SluiceConfig config = new BenchConfig().load(ctx, BenchContext.unique("tp"));
    BenchPipeline.createTopics(config, partitions);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    try {
      preload(config, events, tenantOf);
      Topology t = new Topology();
      t.addSource("in", new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.inbound());
      t.addSink("out", topics.ready(), new ByteArraySerializer(), new ByteArraySerializer(), "in");
      Properties props = new Properties();
      props.putAll(config.kafka().clientProperties());
      props.put(StreamsConfig.APPLICATION_ID_CONFIG, BenchContext.unique("pass"));
      props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
      props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
      props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
      props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
      props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
      props.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 1000);
      // As the gate (Gate.properties): with task idling on, Kafka Streams builds a "fetched lag"
      // string for every record it processes (PartitionGroup.readyToProcess), a fifth of what the
      // pass-through's stream threads allocated in the gate bench's profile. The gate turns it
      // off; a baseline left paying for it would flatter the gate.
      props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
      props.put(StreamsConfig.STATE_DIR_CONFIG,
          Files.createTempDirectory("sluice-bench-pass-").toString());
      KafkaStreams streams = new KafkaStreams(t, props);
      streams.start();
      try {
        Measured m = measure(ctx, config, events, threads);
        return new Result(m.eventsPerSecond(), events, 0, 0, 0, 0, m.cpu());
      } finally {
        streams.close(Duration.ofSeconds(30));
      }
    } finally {
      BenchPipeline.deleteTopics(config);
    }
  }

  private static void preload(SluiceConfig config, long events, LongFunction<String> tenantOf) {
    try (EventLoad load = new EventLoad(config, true)) {
      load.preload(events, tenantOf);
    }
  }

  private record Measured(double eventsPerSecond, CpuSnapshot.PerEvent cpu) {}

  /**
   * Output records per second, from the first to the last of {@code events} outputs, and the CPU
   * the outputs after the first batch cost (snapshots when the first and the last batch arrive).
   */
  private static Measured measure(BenchContext ctx, SluiceConfig config, long events, int threads) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    List<String> outputs = new ArrayList<>(topics.delays());
    outputs.add(topics.ready());
    outputs.add(topics.dlq());
    Map<String, Object> c = config.kafka().clientProperties(Map.of(
        ConsumerConfig.GROUP_ID_CONFIG, "measure-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000));
    long seen = 0;
    long firstBatch = 0;
    CpuSnapshot atFirst = null;
    CpuSnapshot atLast = null;
    long first = 0;
    long last = 0;
    long began = System.nanoTime();
    long deadline = began + Duration.ofMinutes(5).toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(outputs);
      while (seen < events) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("only " + seen + " of " + events + " outputs in 5 minutes");
        }
        int n = consumer.poll(Duration.ofMillis(100)).count();
        if (n > 0) {
          long now = System.nanoTime();
          if (seen == 0) {
            first = now;
            firstBatch = n;
            atFirst = CpuSnapshot.take(ctx.redis());
          }
          seen += n;
          last = now;
          if (seen >= events) {
            atLast = CpuSnapshot.take(ctx.redis());
          }
        }
      }
    }
    // All in one batch (a tiny --quick run): from the start of reading instead, start-up included.
    if (last == first) {
      return new Measured(seen / ((last - began) / 1e9), CpuSnapshot.PerEvent.UNKNOWN);
    }
    return new Measured((seen - firstBatch) / ((last - first) / 1e9),
        atFirst.to(atLast, seen - firstBatch, threads));
  }
}
