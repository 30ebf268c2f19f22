package io.sluice.schemas.topic;

import io.sluice.schemas.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
}
