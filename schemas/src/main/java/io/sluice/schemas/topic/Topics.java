package io.sluice.schemas.topic;

import io.sluice.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The names of Sluice's topics under one prefix: {@code <prefix>inbound}, {@code <prefix>regate},
 * {@code <prefix>ready}, {@code <prefix>ready.high} (the {@code high} class's own ready topic,
 * {@link #readyHigh}), {@code <prefix>delay.<step>} (one per ladder step, e.g.
 * {@code sluice.delay.30s}), {@code <prefix>outcomes}, {@code <prefix>dlq}.
 *
 * <p>The trust boundary: producers write {@code inbound} only, and every {@code sluice-*} header
 * found there is a forgery the gate strips before anything reads it. Every other topic is
 * Sluice's own (producers get no write ACL on them), so on {@code regate}, {@code ready} and the
 * delay steps Sluice's headers are believed.
 *
 * <p>The topic contract is here and nowhere else: the names, and each topic's settings
 * ({@link #configs}: retention, cleanup, {@code min.insync.replicas}, the dead-letter topic's
 * {@code max.message.bytes}). {@code sluice topics create}, the lab (demo, bench, chaos) and the
 * embedded broker of the tests all create topics from it.
 */
public record Topics(String prefix, List<Duration> ladder) {
  public static final String DEFAULT_PREFIX = "sluice.";

  /** Kafka's default {@code message.max.bytes}: the largest record batch a default broker takes. */
  public static final int BROKER_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
  /**
   * The dead-letter topic's {@code max.message.bytes}: the broker default plus 64 KiB. A dead
   * letter is the inbound record plus Sluice's headers (well under a KiB), so the dead letter of
   * any value a default broker took keeps its bytes.
   */
  public static final int DLQ_MAX_MESSAGE_BYTES = BROKER_DEFAULT_MAX_MESSAGE_BYTES + 64 * 1024;
  /** How long records flow-through topics keep (inbound, regate, ready; a delay step's floor). */
  public static final Duration WORK_RETENTION = Duration.ofDays(7);
  /** How long the audit trail keeps (outcomes and dlq: {@code verify} reconciles against them). */
  public static final Duration AUDIT_RETENTION = Duration.ofDays(30);
  /**
   * The replay ledger's {@code retention.ms}: for ever (compacted only, one small record per dead
   * letter replayed). Any time bound could be shorter than the dead-letter topic's retention,
   * which an operator may raise on the broker: a dead letter outliving its ledger record would be
   * replayed a second time (issue 34; it was 60 days).
   */
  public static final long REPLAY_LEDGER_RETENTION_MS = -1;

  public Topics {
    ladder = List.copyOf(ladder);
  }

  public String inbound() {
    return prefix + "inbound";
  }

  /**
   * Where the relay returns events the gate deferred without charging them (queued with a
   * {@code sluice-ticket}, or held back while Redis was down): the gate reads it beside
   * {@code inbound}, and only here believes a ticket. Same partitions as inbound, keyed by tenant.
   */
  public String regate() {
    return prefix + "regate";
  }

  /**
   * The only topics a delayed record may return to: {@link #ready()} (paid, or a dispatcher
   * retry), {@link #readyHigh()} (the same, of the {@code high} class) and {@link #regate()} (to
   * be gated again). A {@code sluice-return-to} naming anything else was not written by Sluice.
   */
  public List<String> returnTopics() {
    return List.of(ready(), readyHigh(), regate());
  }

  public String ready() {
    return prefix + "ready";
  }

  /**
   * The ready topic of the {@code high} class: same partitions and key (the tenant) as
   * {@link #ready()}, read by the same dispatcher consumer. Why a topic of its own: the dispatcher
   * reads a partition in order, with a read budget per partition, so a high event written behind
   * its tenant's 20,000 unread lows on one partition of ready waited for all of them to be read
   * (issue 36; docs/decisions/2026-11-29-priority-topic.md). Normal and low stay on ready;
   * {@code ReadyTopic} (schemas' event package) says which an event goes to.
   */
  public String readyHigh() {
    return prefix + "ready.high";
  }

  /** The topics the dispatcher reads: {@link #ready()} and {@link #readyHigh()}. */
  public List<String> readyTopics() {
    return List.of(ready(), readyHigh());
  }

  public String outcomes() {
    return prefix + "outcomes";
  }

  public String dlq() {
    return prefix + "dlq";
  }

  /**
   * The replay ledger of {@code sluice dlq replay}: one record per dead letter replayed, keyed by
   * the dead letter's coordinates ({@code <dlq>-<partition>@<offset>}), written in the same Kafka
   * transaction as the replayed events. Compacted and kept for ever
   * ({@link #REPLAY_LEDGER_RETENTION_MS}): no dead letter outlives its record. Not one of {@link #all()}: only the operator's tool uses it.
   */
  public String replays() {
    return prefix + "replays";
  }

  /**
   * The operators' state: every pause and every tenant registry record (quotas, endpoints,
   * rules), one record per key ({@code pause:<provider>/<tenant>}, {@code tenant:<id>}), the
   * latest value of a key in force and a null value (a tombstone) for a resume or a delete.
   * Compacted and never deleted by age: it is the durable home of what an operator set, and
   * Redis holds only a cache of it (docs/decisions/2026-11-29-operator-state.md). One partition
   * ({@link #OPERATOR_PARTITIONS}): it is small, and one partition reads in the order written.
   */
  public String operator() {
    return prefix + "operator";
  }

  /**
   * The gate's receipts, when {@code gate.receipts} is on: one small JSON record per decision of
   * its limit step (id, tenant, provider, decision, etaMillis, reason), keyed by tenant, for
   * producers to read. Not one of {@link #all()}: only a gate with receipts on needs it.
   */
  public String receipts() {
    return prefix + "receipts";
  }

  /** The operator topic's partitions: one, whatever the work topics have. */
  public static final int OPERATOR_PARTITIONS = 1;

  public String delay(Duration step) {
    return prefix + "delay." + Durations.format(step);
  }

  public List<String> delays() {
    List<String> names = new ArrayList<>();
    for (Duration step : ladder) {
      names.add(delay(step));
    }
    return names;
  }

  public List<String> all() {
    List<String> names = new ArrayList<>(List.of(inbound(), regate(), ready(), readyHigh(),
        outcomes(), dlq()));
    names.addAll(delays());
    names.add(operator());
    return names;
  }

  /**
   * The settings of topic {@code name} (one of {@link #all()}) on a cluster that writes
   * {@code replicas} copies:
   * <ul>
   *   <li>inbound, regate, ready, ready.high, receipts: retention {@link #WORK_RETENTION}, enough to survive a
   *       long outage of a consumer;
   *   <li>a delay step: at least {@link #WORK_RETENTION} or ten times its step, whichever is more,
   *       so a record never expires while it waits;
   *   <li>outcomes and dlq: {@link #AUDIT_RETENTION}; the dlq also takes records up to
   *       {@link #DLQ_MAX_MESSAGE_BYTES};
   *   <li>replays: compacted only, kept for ever ({@link #REPLAY_LEDGER_RETENTION_MS});
   *   <li>operator: compacted only, kept forever (a pause or a tenant record set a year ago is
   *       still in force);
   *   <li>every topic: delete cleanup, {@code min.insync.replicas} = replicas - 1 (at least 1).
   * </ul>
   *
   * @throws IllegalArgumentException if {@code name} is not one of Sluice's topics
   */
  public Map<String, String> configs(String name, short replicas) {
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(retention(name).toMillis()));
    configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
    configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(Math.max(1, replicas - 1)));
    if (name.equals(dlq())) {
      configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(DLQ_MAX_MESSAGE_BYTES));
    }
    if (name.equals(replays())) {
      configs.put(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(REPLAY_LEDGER_RETENTION_MS));
      configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    }
    if (name.equals(operator())) {
      configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    }
    return configs;
  }

  private Duration retention(String name) {
    if (name.equals(inbound()) || name.equals(regate()) || name.equals(ready())
        || name.equals(readyHigh()) || name.equals(receipts())) {
      return WORK_RETENTION;
    }
    if (name.equals(outcomes()) || name.equals(dlq())) {
      return AUDIT_RETENTION;
    }
    if (name.equals(replays())) {
      return Duration.ofMillis(REPLAY_LEDGER_RETENTION_MS);
    }
    if (name.equals(operator())) {
      return Duration.ofMillis(-1);
    }
    for (Duration step : ladder) {
      if (name.equals(delay(step))) {
        Duration tenSteps = step.multipliedBy(10);
        return tenSteps.compareTo(WORK_RETENTION) > 0 ? tenSteps : WORK_RETENTION;
      }
    }
    throw new IllegalArgumentException("not one of Sluice's topics: " + name);
  }

  /**
   * Partition counts for every topic: {@code work} for the topics records flow through (inbound,
   * regate, ready, ready.high, the delay steps), {@code audit} for outcomes and dlq, one for operator. For test and demo brokers; a real
   * deployment creates its topics with their settings (see the {@code topics create} command).
   */
  public Map<String, Integer> partitionCounts(int work, int audit) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put(inbound(), work);
    counts.put(regate(), work);
    counts.put(ready(), work);
    counts.put(readyHigh(), work);
    delays().forEach(d -> counts.put(d, work));
    counts.put(outcomes(), audit);
    counts.put(dlq(), audit);
    counts.put(operator(), OPERATOR_PARTITIONS);
    return counts;
  }
}
