package io.sluice.schemas.topic;

import io.sluice.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The names of Sluice's topics under one prefix: {@code <prefix>inbound}, {@code <prefix>regate},
 * {@code <prefix>ready}, {@code <prefix>delay.<step>} (one per ladder step, e.g.
 * {@code sluice.delay.30s}), {@code <prefix>outcomes}, {@code <prefix>dlq}.
 *
 * <p>The trust boundary: producers write {@code inbound} only, and every {@code sluice-*} header
 * found there is a forgery the gate strips before anything reads it. Every other topic is
 * Sluice's own (producers get no write ACL on them), so on {@code regate}, {@code ready} and the
 * delay steps Sluice's headers are believed.
 */
public record Topics(String prefix, List<Duration> ladder) {
  public static final String DEFAULT_PREFIX = "sluice.";

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
   * retry) and {@link #regate()} (to be gated again). A {@code sluice-return-to} naming anything
   * else was not written by Sluice.
   */
  public List<String> returnTopics() {
    return List.of(ready(), regate());
  }

  public String ready() {
    return prefix + "ready";
  }

  public String outcomes() {
    return prefix + "outcomes";
  }

  public String dlq() {
    return prefix + "dlq";
  }

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
    List<String> names = new ArrayList<>(List.of(inbound(), regate(), ready(), outcomes(), dlq()));
    names.addAll(delays());
    return names;
  }

  /**
   * Partition counts for every topic: {@code work} for the topics records flow through (inbound,
   * regate, ready, the delay steps), {@code audit} for outcomes and dlq. For test and demo brokers; a real
   * deployment creates its topics with their settings (see the {@code topics create} command).
   */
  public Map<String, Integer> partitionCounts(int work, int audit) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put(inbound(), work);
    counts.put(regate(), work);
    counts.put(ready(), work);
    delays().forEach(d -> counts.put(d, work));
    counts.put(outcomes(), audit);
    counts.put(dlq(), audit);
    return counts;
  }
}
