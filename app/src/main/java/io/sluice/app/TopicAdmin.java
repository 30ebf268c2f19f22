package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates and checks Sluice's topics.
 *
 * <p>What each topic gets, and why:
 * <ul>
 *   <li>inbound, regate, ready and the delay steps: {@code partitions} each (the unit of
 *       parallelism of every role; regate must match inbound, both keyed by tenant, so that a
 *       tenant's events from both meet in one gate task); retention 7 days, enough to survive a
 *       long outage of a consumer;
 *   <li>a delay step additionally keeps at least 7 days or ten times its step, whichever is more,
 *       so a record never expires while it waits;
 *   <li>outcomes and dlq: the same partitions, retention 30 days (they are the audit trail, and
 *       {@code verify} reconciles against them);
 *   <li>every topic: {@code min.insync.replicas} = replicas - 1 (at least 1), delete cleanup.
 * </ul>
 * Producers need write access to inbound only; regate, ready and the delay steps are Sluice's own
 * (the gate believes the {@code sluice-*} headers it finds on regate).
 */
public final class TopicAdmin implements AutoCloseable {
  private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);

  private final Admin admin;
  private final Topics topics;

  public TopicAdmin(SluiceConfig config) {
    this.admin = Admin.create(config.kafka().clientProperties(Map.of(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)));
    this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
  }

  /** The topics and their settings, for {@code partitions} partitions and {@code replicas}. */
  public List<NewTopic> plan(int partitions, short replicas) {
    List<NewTopic> plan = new ArrayList<>();
    String minIsr = String.valueOf(Math.max(1, replicas - 1));
    for (String name : List.of(topics.inbound(), topics.regate(), topics.ready())) {
      plan.add(topic(name, partitions, replicas, 7 * DAY_MS, minIsr));
    }
    for (Duration step : topics.ladder()) {
      plan.add(topic(topics.delay(step), partitions, replicas,
          Math.max(7 * DAY_MS, 10 * step.toMillis()), minIsr));
    }
    plan.add(topic(topics.outcomes(), partitions, replicas, 30 * DAY_MS, minIsr));
    NewTopic dlq = topic(topics.dlq(), partitions, replicas, 30 * DAY_MS, minIsr);
    // A dead letter is the inbound record plus Sluice's headers: the DLQ takes a little more than
    // the broker's default limit, so the dead letter of any inbound value keeps its bytes.
    dlq.configs().put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
        String.valueOf(io.sluice.topology.gate.OutputLimits.MAX_RECORD_BYTES));
    plan.add(dlq);
    return plan;
  }

  private static NewTopic topic(String name, int partitions, short replicas, long retentionMs,
      String minIsr) {
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(retentionMs));
    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, minIsr);
    return new NewTopic(name, partitions, replicas).configs(configs);
  }

  /**
   * Creates what is missing; returns the names created (existing topics are left as they are). A
   * missing regate next to an existing inbound (a deployment from before regate existed) gets
   * inbound's partition count, whatever {@code partitions} says: the gate reads both in one task
   * per partition number, keyed by tenant.
   */
  public List<String> create(int partitions, short replicas)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
    List<NewTopic> missing = new ArrayList<>();
    for (NewTopic t : plan(partitions, replicas)) {
      if (existing.contains(t.name())) {
        continue;
      }
      if (t.name().equals(topics.regate()) && existing.contains(topics.inbound())) {
        int inbound = admin.describeTopics(List.of(topics.inbound())).allTopicNames()
            .get(15, TimeUnit.SECONDS).get(topics.inbound()).partitions().size();
        t = new NewTopic(t.name(), inbound, replicas).configs(t.configs());
      }
      missing.add(t);
    }
    List<String> created = new ArrayList<>();
    if (missing.isEmpty()) {
      return created;
    }
    var result = admin.createTopics(missing);
    for (NewTopic t : missing) {
      try {
        result.values().get(t.name()).get(30, TimeUnit.SECONDS);
        created.add(t.name());
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
    return created;
  }

  /** The topics Sluice needs that do not exist; empty when all are there. */
  public Set<String> missing() throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
    Set<String> missing = new TreeSet<>(topics.all());
    missing.removeAll(existing);
    return missing;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
