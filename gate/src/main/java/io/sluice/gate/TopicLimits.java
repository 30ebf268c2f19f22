package io.sluice.gate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code max.message.bytes} of the topics the gate writes, as the broker has them (a topic's
 * own setting or the broker's {@code message.max.bytes} it inherits). Knowing them lets the gate
 * replace a record the broker would refuse before sending it: a refusal seen only in the
 * produce response aborts the transaction and costs a stream thread (Kafka Streams 4.3 fails the
 * thread on the next send after an abortable error).
 *
 * <p>Read once, on first need, with the producer's own connection settings (so SASL/TLS apply).
 * If the broker cannot tell, the limit is taken as Kafka's default and asked again after
 * {@link #RETRY}: stricter than needed for a topic configured larger, never looser.
 *
 * <p>Every record the gate writes asks here, from every stream thread's producer at once, so a
 * known topic's limit is read without a lock: the limits are an immutable map published through
 * a volatile field, replaced whole. Only a topic not in it (first need, or the broker could not
 * tell) takes the lock and may ask the broker; a thread that finds the map already replaced by
 * another when it gets the lock reads that instead of asking again.
 */
final class TopicLimits implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);
  static final Duration RETRY = Duration.ofSeconds(30);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final List<String> topics;
  private final Function<List<String>, Map<String, Integer>> describe;
  private final Admin admin;
  /** Immutable, replaced whole: read without the lock. */
  private volatile Map<String, Integer> limits = Map.of();
  /** Guarded by {@code this}. */
  private long unknownUntil = Long.MIN_VALUE;

  TopicLimits(List<String> topics, Function<List<String>, Map<String, Integer>> describe, Admin admin) {
    this.topics = List.copyOf(topics);
    this.describe = describe;
    this.admin = admin;
  }

  /** Limits read with an admin client built from {@code clientConfigs} (a producer's). */
  static TopicLimits fromBroker(List<String> topics, Map<String, ?> clientConfigs) {
    Map<String, Object> adminConfigs = new HashMap<>();
    clientConfigs.forEach((k, v) -> {
      if (AdminClientConfig.configNames().contains(k) && !k.equals(AdminClientConfig.CLIENT_ID_CONFIG)
          && !k.startsWith("metric")) {
        adminConfigs.put(k, v);
      }
    });
    adminConfigs.put(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-gate-topic-limits");
    adminConfigs.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    adminConfigs.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    Admin admin = Admin.create(adminConfigs);
    return new TopicLimits(topics, names -> read(admin, names), admin);
  }

  /** The topic's limit in bytes; Kafka's default when the broker could not tell. */
  int of(String topic) {
    Integer known = limits.get(topic);
    return known != null ? known : unknown(topic);
  }

  /** The slow path of {@link #of}: the topic's limit is not known (yet). */
  private synchronized int unknown(String topic) {
    Integer known = limits.get(topic);
    if (known != null) {
      return known;
    }
    long now = System.nanoTime();
    if (unknownUntil == Long.MIN_VALUE || now - unknownUntil >= 0) {
      try {
        List<String> wanted = topics.contains(topic) ? topics
            : Stream.concat(topics.stream(), Stream.of(topic)).toList();
        limits = Map.copyOf(describe.apply(wanted));
        unknownUntil = Long.MIN_VALUE;
        known = limits.get(topic);
        if (known != null) {
          return known;
        }
      } catch (RuntimeException e) {
        LOG.warn("gate: could not read max.message.bytes of its topics ({}); taking Kafka's default "
            + "{} until it can", e.toString(), OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES);
      }
      unknownUntil = now + RETRY.toNanos();
    }
    return OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** The limits the broker could tell; a topic it could not describe (missing, say) is left out. */
  private static Map<String, Integer> read(Admin admin, List<String> names) {
    List<ConfigResource> resources = names.stream()
        .map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
    Map<String, Integer> limits = new HashMap<>();
    List<String> failures = new ArrayList<>();
    admin.describeConfigs(resources).values().forEach((resource, future) -> {
      try {
        Config config = future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        if (entry != null && entry.value() != null) {
          limits.put(resource.name(), Integer.parseInt(entry.value()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failures.add(resource.name() + ": interrupted");
      } catch (Exception e) {
        failures.add(resource.name() + ": " + (e.getCause() == null ? e : e.getCause()));
      }
    });
    if (limits.isEmpty() && !failures.isEmpty()) {
      throw new IllegalStateException(String.join("; ", failures));
    }
    return limits;
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(1));
    }
  }
}
