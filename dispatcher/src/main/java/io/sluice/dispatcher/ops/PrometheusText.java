package io.sluice.dispatcher.ops;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Renders a Dropwizard {@link MetricRegistry} in the Prometheus text exposition format, version
 * 0.0.4 ({@code Content-Type: text/plain; version=0.0.4}).
 *
 * <h2>From Dropwizard metrics to Prometheus families</h2>
 * Registry names are read by {@link MetricNames#parse}: {@code base{label="value",...}}. Every
 * series of one base is one family, written as one contiguous block under a single
 * {@code # HELP} and {@code # TYPE} line. With base {@code b}:
 * <pre>
 *   Dropwizard   family            samples
 *   Counter      b_total  counter  b_total{..} count
 *   Gauge        b        gauge    b{..} value          (numbers; booleans as 1/0; others skipped)
 *   Meter        b_total  counter  b_total{..} count
 *                b_rate1m gauge    b_rate1m{..} one-minute rate, events per second
 *   Histogram    b        summary  b{..,quantile="0.5|0.9|0.99"} value, b_count{..},
 *                                  b_sum{..} only for a {@link SummingHistogram}
 *   Timer        b_seconds summary as Histogram, in seconds; b_sum only for a {@link SummingTimer}
 *                                  ("_seconds" is not doubled when b already ends in it)
 * </pre>
 * Worked example: a counter {@code sluice_gate_admitted{provider="payments-api",tier="pro"}}
 * counted 42 times and one with {@code tier="free"} counted 7 times give
 * <pre>
 *   # HELP sluice_gate_admitted_total Events the gate admitted
 *   # TYPE sluice_gate_admitted_total counter
 *   sluice_gate_admitted_total{provider="payments-api",tier="free"} 7
 *   sluice_gate_admitted_total{provider="payments-api",tier="pro"} 42
 * </pre>
 *
 * <h2>Why quantiles are a summary and the rate is a separate gauge</h2>
 * Dropwizard computes quantiles over a decaying sample inside the process; they cannot be
 * aggregated across instances, which is what a Prometheus summary means. The count is exact and
 * monotonic, so {@code rate()} over it is the right way to get a rate; the meter's own one-minute
 * rate is exported only for people reading the endpoint by eye.
 *
 * <h2>Collisions</h2>
 * A valid exposition has one TYPE per family and each sample name owned by one family. Names
 * registered outside {@link MetricNames} are sanitized and may collide ({@code a.b} and {@code a_b}),
 * and a gauge named {@code x_count} would collide with summary {@code x}. The first metric in
 * registry-name order wins; a later one that would reuse a family with another type, a sample name
 * another family owns, or an identical series, is left out, so the output always parses.
 * Metrics whose names break the {@link MetricNames} label rules (a {@code tenant} label) are
 * never exported.
 */
public final class PrometheusText {
  /** The Content-Type of the format. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  static final List<String> QUANTILES = List.of("0.5", "0.9", "0.99");
  private static final double NANOS_PER_SECOND = 1e9;

  private final Map<String, String> helpByBase;

  private PrometheusText(Map<String, String> helpByBase) {
    this.helpByBase = Map.copyOf(helpByBase);
  }

  /** Help lines name the Dropwizard type and base, e.g. "sluice_gate_admitted (Dropwizard counter)". */
  public static PrometheusText create() {
    return new PrometheusText(Map.of());
  }

  /** @param helpByBase help text by base name (as given to {@link MetricNames#name}) */
  public static PrometheusText withHelp(Map<String, String> helpByBase) {
    return new PrometheusText(helpByBase);
  }

  /** The whole exposition, every line ending in a line feed. */
  public String render(MetricRegistry registry) {
    Exposition out = new Exposition();
    // The registry's map is unordered; sorting makes series order, and which of two colliding
    // names wins, the same on every scrape.
    for (Map.Entry<String, Metric> entry : new TreeMap<>(registry.getMetrics()).entrySet()) {
      Optional<MetricName> name = MetricNames.parse(entry.getKey());
      if (name.isEmpty()) {
        continue;
      }
      add(out, name.get(), entry.getValue());
    }
    return out.text();
  }

  private void add(Exposition out, MetricName name, Metric metric) {
    String base = name.base();
    Map<String, String> labels = name.labels();
    if (metric instanceof Counter counter) {
      Family f = out.family(base + "_total", "counter", help(base, "counter"));
      f.sample(out, base + "_total", labels, Long.toString(counter.getCount()));
    } else if (metric instanceof Gauge<?> gauge) {
      gaugeValue(gauge).ifPresent(value -> out.family(base, "gauge", help(base, "gauge"))
          .sample(out, base, labels, value));
    } else if (metric instanceof Meter meter) {
      out.family(base + "_total", "counter", help(base, "meter, count"))
          .sample(out, base + "_total", labels, Long.toString(meter.getCount()));
      out.family(base + "_rate1m", "gauge", help(base, "meter, one-minute rate per second"))
          .sample(out, base + "_rate1m", labels, number(meter.getOneMinuteRate()));
    } else if (metric instanceof Timer timer) {
      String family = base.endsWith("_seconds") ? base : base + "_seconds";
      Long sum = timer instanceof SummingTimer summing ? summing.sumNanos() : null;
      summary(out, out.family(family, "summary", help(base, "timer, seconds")), family, labels,
          timer.getSnapshot(), timer.getCount(), sum, NANOS_PER_SECOND);
    } else if (metric instanceof Histogram histogram) {
      Long sum = histogram instanceof SummingHistogram summing ? summing.sum() : null;
      summary(out, out.family(base, "summary", help(base, "histogram")), base, labels,
          histogram.getSnapshot(), histogram.getCount(), sum, 1);
    }
  }

  private static void summary(Exposition out, Family f, String family, Map<String, String> labels,
      Snapshot snapshot, long count, Long sum, double divisor) {
    for (String q : QUANTILES) {
      Map<String, String> withQuantile = new LinkedHashMap<>(labels);
      withQuantile.put("quantile", q);
      f.sample(out, family, withQuantile, number(snapshot.getValue(Double.parseDouble(q)) / divisor));
    }
    if (sum != null) {
      f.sample(out, family + "_sum", labels, divisor == 1 ? Long.toString(sum) : number(sum / divisor));
    }
    f.sample(out, family + "_count", labels, Long.toString(count));
  }

  private String help(String base, String kind) {
    String help = helpByBase.get(base);
    return help != null ? help : base + " (Dropwizard " + kind + ")";
  }

  private static Optional<String> gaugeValue(Gauge<?> gauge) {
    Object value;
    try {
      value = gauge.getValue();
    } catch (RuntimeException e) {
      return Optional.empty(); // a broken gauge must not break the scrape of every other metric
    }
    if (value instanceof Number n) {
      boolean fractional = n instanceof Double || n instanceof Float || n instanceof BigDecimal;
      return Optional.of(fractional ? number(n.doubleValue()) : Long.toString(n.longValue()));
    }
    if (value instanceof Boolean b) {
      return Optional.of(b ? "1" : "0");
    }
    return Optional.empty();
  }

  /** Go's float syntax as Prometheus reads it: NaN, +Inf, -Inf, or a decimal. */
  static String number(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "+Inf" : "-Inf";
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return Double.toString(value);
  }

  /** The families being written, by name, and which family owns each sample name. */
  private static final class Exposition {
    private final Map<String, Family> families = new TreeMap<>();
    private final Map<String, String> sampleOwner = new HashMap<>();

    /** The family of that name; a dead-end family (nothing written) if it exists with another type. */
    Family family(String name, String type, String help) {
      Family existing = families.get(name);
      if (existing != null) {
        return existing.type.equals(type) ? existing : Family.DISCARD;
      }
      Family created = new Family(name, type, help);
      families.put(name, created);
      return created;
    }

    String text() {
      StringBuilder out = new StringBuilder(4096);
      for (Family f : families.values()) {
        if (f.lines.length() == 0) {
          continue;
        }
        out.append("# HELP ").append(f.name).append(' ').append(escapeHelp(f.help)).append('\n');
        out.append("# TYPE ").append(f.name).append(' ').append(f.type).append('\n');
        out.append(f.lines);
      }
      return out.toString();
    }

    private static String escapeHelp(String help) {
      return help.replace("\\", "\\\\").replace("\n", "\\n");
    }
  }

  private static final class Family {
    static final Family DISCARD = new Family("", "", "");

    final String name;
    final String type;
    final String help;
    final StringBuilder lines = new StringBuilder();
    private final Set<String> series = new HashSet<>();

    Family(String name, String type, String help) {
      this.name = name;
      this.type = type;
      this.help = help;
    }

    void sample(Exposition out, String sampleName, Map<String, String> labels, String value) {
      if (this == DISCARD) {
        return;
      }
      String owner = out.sampleOwner.putIfAbsent(sampleName, name);
      if (owner != null && !owner.equals(name)) {
        return;
      }
      StringBuilder line = new StringBuilder(sampleName);
      LabelText.append(line, labels);
      if (!series.add(line.toString())) {
        return;
      }
      lines.append(line).append(' ').append(value).append('\n');
    }
  }
}
