package io.sluice.schemas.topic;

import io.sluice.schemas.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The names of Sluice's topics under one prefix: {@code <prefix>inbound}, {@code <prefix>ready},
 * {@code <prefix>delay.<step>} (one per ladder step, e.g. {@code sluice.delay.30s}),
 * {@code <prefix>outcomes}, {@code <prefix>dlq}.
 */
public record Topics(String prefix, List<Duration> ladder) {
  public static final String DEFAULT_PREFIX = "sluice.";

  public Topics {
    ladder = List.copyOf(ladder);
  }

  public String inbound() {
    return prefix + "inbound";
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
    List<String> names = new ArrayList<>(List.of(inbound(), ready(), outcomes(), dlq()));
    names.addAll(delays());
    return names;
  }

  /**
   * Partition counts for every topic: {@code work} for the topics records flow through (inbound,
   * ready, the delay steps), {@code audit} for outcomes and dlq. For test and demo brokers; a real
   * deployment creates its topics with their settings (see the {@code topics create} command).
   */
  public Map<String, Integer> partitionCounts(int work, int audit) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put(inbound(), work);
    counts.put(ready(), work);
    delays().forEach(d -> counts.put(d, work));
    counts.put(outcomes(), audit);
    counts.put(dlq(), audit);
    return counts;
  }
}
