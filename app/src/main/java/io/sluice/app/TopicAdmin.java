package io.sluice.app;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates and checks Sluice's topics, with the settings {@link Topics#configs} gives each (the
 * topic contract lives there). Producers need write access to inbound only; regate, ready and the
 * delay steps are Sluice's own (the gate believes the {@code sluice-*} headers it finds on regate).
 */
public final class TopicAdmin implements AutoCloseable {

  private final Admin admin;
  private final Topics topics;
  /** Whether the gate writes receipts, so their topic must exist. */
  private final boolean receipts;

  public TopicAdmin(SluiceConfig config) {
    this.admin = Admin.create(config.kafka().clientProperties(Map.of(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)));
    this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    this.receipts = config.gate().receipts();
  }

  /** The topics and their settings, for {@code partitions} partitions and {@code replicas}. */
  public List<NewTopic> plan(int partitions, short replicas) {
    List<String> names = new ArrayList<>(List.of(topics.inbound(), topics.regate(), topics.ready(),
        topics.readyHigh()));
    names.addAll(topics.delays());
    names.addAll(List.of(topics.outcomes(), topics.dlq(), topics.replays(), topics.receipts()));
    List<NewTopic> plan = new ArrayList<>();
    for (String name : names) {
      plan.add(new NewTopic(name, partitions, replicas).configs(topics.configs(name, replicas)));
    }
    plan.add(new NewTopic(topics.operator(), Topics.OPERATOR_PARTITIONS, replicas)
        .configs(topics.configs(topics.operator(), replicas)));
    return plan;
  }

  /**
   * Creates what is missing; returns the names created (existing topics are left as they are). A
   * topic added by a later version next to the topic it pairs with ({@link #pairs}: regate next
   * to inbound, ready.high next to ready) gets that topic's partition count, whatever
   * {@code partitions} says: both are keyed by tenant and read side by side.
   */
  public List<String> create(int partitions, short replicas)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
    List<NewTopic> missing = new ArrayList<>();
    for (NewTopic t : plan(partitions, replicas)) {
      if (existing.contains(t.name())) {
        continue;
      }
      String pair = pairs().get(t.name());
      if (pair != null && existing.contains(pair)) {
        t = new NewTopic(t.name(), partitionsOf(pair), replicas).configs(t.configs());
      }
      missing.add(t);
    }
    return createAll(missing);
  }

  /**
   * At a role's start: creates {@code ready.high} when its deployment has {@code ready} and not it
   * (one from before the priority topic, docs/decisions/2026-11-29-priority-topic.md), with
   * ready's partitions and replication factor and its own settings; returns what it created. A
   * deployment without ready is left to {@code sluice topics create}, as before.
   */
  public List<String> createAddedAtStart()
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
    if (existing.contains(topics.readyHigh()) || !existing.contains(topics.ready())) {
      return List.of();
    }
    var ready = admin.describeTopics(List.of(topics.ready())).allTopicNames()
        .get(15, TimeUnit.SECONDS).get(topics.ready());
    short replicas = (short) ready.partitions().get(0).replicas().size();
    return createAll(List.of(new NewTopic(topics.readyHigh(), ready.partitions().size(), replicas)
        .configs(topics.configs(topics.readyHigh(), replicas))));
  }

  /** Each topic a later version added, and the topic whose partitions it takes. */
  private Map<String, String> pairs() {
    return Map.of(topics.regate(), topics.inbound(), topics.readyHigh(), topics.ready());
  }

  private int partitionsOf(String topic)
      throws InterruptedException, ExecutionException, TimeoutException {
    return admin.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS)
        .get(topic).partitions().size();
  }

  private List<String> createAll(List<NewTopic> missing)
      throws InterruptedException, ExecutionException, TimeoutException {
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
    awaitListed(missing.stream().map(NewTopic::name).toList(), Duration.ofSeconds(30));
    return created;
  }

  /**
   * Waits until the broker answering {@code listTopics} lists every one of {@code names}: the
   * controller acknowledges a creation before every broker has applied it, and a role started
   * right after {@code topics create} (its own admin client, perhaps another broker) would find
   * them missing and refuse to start.
   */
  private void awaitListed(List<String> names, Duration patience)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (!admin.listTopics().names().get(15, TimeUnit.SECONDS).containsAll(names)) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("topics created but not listed after " + patience + ": " + names);
      }
      Thread.sleep(50);
    }
  }

  /** The topics Sluice needs that do not exist; empty when all are there. */
  public Set<String> missing() throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(15, TimeUnit.SECONDS);
    Set<String> missing = new TreeSet<>(topics.all());
    if (receipts) {
      missing.add(topics.receipts());
    }
    missing.removeAll(existing);
    return missing;
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}
