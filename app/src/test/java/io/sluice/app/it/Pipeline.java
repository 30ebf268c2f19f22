package io.sluice.app.it;

import io.sluice.dispatcher.dispatch.DispatcherWiring;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.testkit.Await;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.Dispatcher;
import io.sluice.dispatcher.dispatch.DispatcherClients;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** What the dispatcher integration tests share: configs, topics, input and the settled output. */
final class Pipeline {
  private Pipeline() {}

  /** An event as a test writes it to {@code sluice.ready} (as if the gate had admitted it). */
  record Ready(String id, String tenant, String tier, String provider, int cost, String path,
      java.time.Instant deadline, String priority) {
    Ready(String id, String tenant, String tier, String provider, int cost, String path,
        java.time.Instant deadline) {
      this(id, tenant, tier, provider, cost, path, deadline, null);
    }

    Ready(String id, String tenant, String tier, String provider) {
      this(id, tenant, tier, provider, 1, null);
    }

    Ready(String id, String tenant, String tier, String provider, int cost, String path) {
      this(id, tenant, tier, provider, cost, path, null);
    }

    byte[] json() {
      return ("{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
          + "\",\"cost\":" + cost + (path == null ? "" : ",\"path\":\"" + path + "\"")
          + (deadline == null ? "" : ",\"deadline\":\"" + deadline + "\"")
          + (priority == null ? "" : ",\"priority\":\"" + priority + "\"")
          + ",\"payload\":{\"n\":\"" + id + "\"}}").getBytes(UTF_8);
    }
  }

  /** Parses {@code yaml} with the broker and Redis filled in, a unique prefix and a unique group. */
  static SluiceConfig config(String yaml, KafkaBroker broker, String redisUri) {
    return ConfigLoader.parse(yaml, env(broker, redisUri));
  }

  /**
   * The environment {@link #config} parses with: the broker, Redis, a unique topic prefix and a
   * unique group. Parse a changed file with the same one to reload it.
   */
  static Map<String, String> env(KafkaBroker broker, String redisUri) {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_KAFKA__BOOTSTRAP", broker.bootstrapServers());
    env.put("SLUICE_KAFKA__TOPIC_PREFIX", "d" + unique + ".");
    env.put("SLUICE_REDIS__URI", redisUri);
    env.put("SLUICE_DISPATCHER__GROUP_ID", "dispatch-" + unique);
    return env;
  }

  /**
   * One provider at 200/s with one tier whose tenants have a bucket of 10 at 1/s: the pipeline of
   * the tests about what reaches {@code sluice.ready} and how it is settled.
   */
  static SluiceConfig oneProvider(String provider, URI url, KafkaBroker broker, String redisUri) {
    return config("""
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: %s
            rate: 200/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(provider, url), broker, redisUri);
  }

  /** Every topic of the config: {@code partitions} for ready and the delays, 1 for the rest. */
  static Topics createTopics(SluiceConfig config, KafkaBroker broker, int partitions) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    broker.createTopics(topics.partitionCounts(partitions, 1));
    return topics;
  }

  static KafkaProducer<byte[], byte[]> producer(KafkaBroker broker) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, 5,
        // KAFKA-15591: an idempotent producer with several requests in flight to a topic created
        // a moment ago can be stuck retrying OUT_OF_ORDER_SEQUENCE_NUMBER for 120 s.
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Writes the events to {@code sluice.ready}, keyed by tenant, and waits for every ack. */
  static void produceReady(KafkaBroker broker, Topics topics, List<Ready> events) {
    try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
      List<Future<RecordMetadata>> acks = new java.util.ArrayList<>();
      long now = System.currentTimeMillis();
      for (Ready e : events) {
        RecordHeaders headers = new RecordHeaders();
        HeaderValues.put(headers, HeaderNames.TIER, e.tier());
        HeaderValues.put(headers, HeaderNames.FIRST_SEEN, now);
        acks.add(producer.send(new ProducerRecord<>(topics.ready(), null, now,
            e.tenant().getBytes(UTF_8), e.json(), headers)));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get();
      }
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError("could not write the test events", e);
    }
  }

  /**
   * Reads {@code sluice.outcomes} and {@code sluice.dlq} (committed records) until every id has
   * arrived, and returns where each id first arrived: "outcome" or the dead letter's reason.
   */
  static Map<String, String> awaitSettled(KafkaBroker broker, Topics topics, Set<String> ids,
      Duration within) {
    Map<String, String> settled = new LinkedHashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = reader(broker)) {
      c.subscribe(List.of(topics.outcomes(), topics.dlq()));
      // Observed: the ids not settled yet.
      Await.untilRead("all " + ids.size() + " events settled", within, () -> {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          String id = HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).orElse(null);
          String where = r.topic().equals(topics.outcomes()) ? "outcome"
              : HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("?");
          if (id != null) {
            settled.putIfAbsent(id, where);
          }
        }
        Set<String> missing = new java.util.TreeSet<>(ids);
        missing.removeAll(settled.keySet());
        return missing;
      }, Set::isEmpty);
    }
    return settled;
  }

  /**
   * Every record of {@code topic} (committed ones), from its beginning to its end as of now, its
   * partitions one after the other.
   */
  static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaBroker broker, String topic,
      Duration within) {
    List<ConsumerRecord<byte[], byte[]>> all = new java.util.ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = reader(broker)) {
      List<TopicPartition> partitions = c.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
      c.assign(partitions);
      c.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = c.endOffsets(partitions);
      // Observed: the partitions not read to their end yet.
      Await.untilRead("all of " + topic + " read", within, () -> {
        c.poll(Duration.ofMillis(200)).forEach(all::add);
        return partitions.stream().filter(tp -> c.position(tp) < ends.get(tp)).toList();
      }, List::isEmpty);
    }
    return all;
  }

  static KafkaConsumer<byte[], byte[]> reader(KafkaBroker broker) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** A dispatcher instance on its own thread. */
  static final class Running implements AutoCloseable {
    final Dispatcher dispatcher;
    private final Thread thread;

    Running(SluiceConfig config, String name, Map<String, Provider> providers, LeakyBucket leak,
        DispatchListener listener) {
      this(config, name, providers, leak, DeliveredLog.NONE, listener);
    }

    Running(SluiceConfig config, String name, Map<String, Provider> providers, LeakyBucket leak,
        DeliveredLog deliveredLog, DispatchListener listener) {
      this.dispatcher = new Dispatcher(DispatcherWiring.of(config, DispatcherClients.consumer(config, name),
              DispatcherClients.producer(config, name), providers, leak, Clock.systemUTC(), listener)
          .withDeliveredLog(deliveredLog));
      this.thread = new Thread(dispatcher, name);
      thread.start();
    }

    /** Stops as a crash would: no further writes or commits. */
    void halt() throws InterruptedException {
      dispatcher.halt();
      thread.join(Duration.ofSeconds(30).toMillis());
    }

    @Override
    public void close() throws InterruptedException {
      dispatcher.close();
      thread.join(Duration.ofSeconds(30).toMillis());
    }
  }
}
