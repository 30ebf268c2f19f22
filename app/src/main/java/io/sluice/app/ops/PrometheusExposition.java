package io.sluice.app.ops;

import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricFilter;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Dropwizard {@link MetricRegistry} in the Prometheus text format 0.0.4, made by Prometheus'
 * own Java libraries: {@code prometheus-metrics-instrumentation-dropwizard} converts each metric
 * and {@code prometheus-metrics-exposition-textformats} writes the text (escaping, number syntax,
 * HELP and TYPE lines).
 *
 * <h2>From Dropwizard metrics to Prometheus families (the bridge's mapping)</h2>
 * Registry names are read by {@link LabelledNames}: {@code base{label="value",...}}. With base b:
 * <pre>
 *   Counter    counter b    b_total{..}
 *   Gauge      gauge   b    b{..}         numbers; booleans as 1/0; other values are left out
 *   Meter      counter b    b_total{..}   the count only: use rate() for a rate
 *   Histogram  summary b    b{..,quantile="0.5|0.75|0.95|0.98|0.99|0.999"}, b_count{..}
 *   Timer      summary b    as a histogram, in seconds (name timers ..._seconds)
 * </pre>
 * There is no {@code _sum}: Dropwizard keeps a decaying sample and a count, never a total, and
 * the quantiles of one instance cannot be averaged with another's.
 *
 * <h2>Why this class: one family, many Dropwizard metrics</h2>
 * The bridge turns every Dropwizard metric into a family of its own, and Prometheus' model refuses
 * two families of one name ({@code duplicate metric name}; prometheus/client_java issue 1712). A
 * labelled family is many Dropwizard metrics, one per label set. So each metric is converted on its
 * own, and the series of one family are put together here before the writer sees them. Converting
 * one by one also means a gauge that throws loses only its own series, not the whole scrape.
 *
 * <h2>What is never exported, and collisions</h2>
 * Names that {@link MetricNames#parse} refuses: a {@code tenant} label, a base ending in a suffix
 * the format adds ({@code _total}, {@code _count}, {@code _sum}, {@code _bucket}: a gauge
 * {@code x_count} would collide with summary {@code x}). Otherwise the first metric in
 * registry-name order wins: a later family of another type under the same name, or the same
 * series again ({@code a.b} and {@code a_b} both sanitize to {@code a_b}), is left out, so the
 * output always parses.
 */
public final class PrometheusExposition {
  /** {@code text/plain; version=0.0.4; charset=utf-8}. */
  public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

  private final MetricRegistry registry;
  private final LabelledNames names = new LabelledNames();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  public PrometheusExposition(MetricRegistry registry) {
    this.registry = registry;
  }

  /** The whole exposition, every line ending in a line feed. */
  public String render() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      writer.write(out, collect());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // cannot happen on a byte array
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Every exported family, with all its series. */
  MetricSnapshots collect() {
    Map<String, List<MetricSnapshot>> byFamily = new LinkedHashMap<>();
    // The registry's map is unordered; sorting makes which of two colliding names wins stable.
    for (Map.Entry<String, Metric> entry : new TreeMap<>(registry.getMetrics()).entrySet()) {
      if (MetricNames.parse(entry.getKey()).isEmpty()) {
        continue;
      }
      for (MetricSnapshot series : convert(entry.getKey(), entry.getValue())) {
        byFamily.computeIfAbsent(series.getMetadata().getPrometheusName(), k -> new ArrayList<>())
            .add(series);
      }
    }
    MetricSnapshots.Builder families = MetricSnapshots.builder();
    byFamily.values().forEach(parts -> families.metricSnapshot(family(parts)));
    return families.build();
  }

  /** One metric through the bridge, alone, so that its family name cannot clash with another's. */
  private MetricSnapshots convert(String registryName, Metric metric) {
    MetricRegistry alone = new MetricRegistry();
    alone.register(registryName, metric);
    try {
      return new DropwizardExports(alone, MetricFilter.ALL, names).collect();
    } catch (RuntimeException e) {
      return MetricSnapshots.of(); // a broken gauge must not break the scrape of every other metric
    }
  }

  /** The series of one family as one snapshot; parts of another type than the first are left out. */
  private static MetricSnapshot family(List<MetricSnapshot> parts) {
    MetricSnapshot first = parts.get(0);
    String name = first.getMetadata().getName();
    if (first instanceof CounterSnapshot) {
      return new CounterSnapshot(metadata(name, "counter"), points(parts, CounterSnapshot.class));
    }
    if (first instanceof GaugeSnapshot) {
      return new GaugeSnapshot(metadata(name, "gauge"), points(parts, GaugeSnapshot.class));
    }
    if (first instanceof SummarySnapshot) {
      return new SummarySnapshot(metadata(name, "histogram or timer"), points(parts, SummarySnapshot.class));
    }
    throw new IllegalStateException("the Dropwizard bridge made a " + first.getClass().getName());
  }

  /** The bridge's help names one series' registry name; a family's must not. */
  private static MetricMetadata metadata(String name, String kind) {
    return new MetricMetadata(name, name + " (Dropwizard " + kind + ")");
  }

  /** The data points of every part of that type, each label set once (the first one seen). */
  @SuppressWarnings("unchecked")
  private static <P extends DataPointSnapshot> List<P> points(List<MetricSnapshot> parts,
      Class<? extends MetricSnapshot> type) {
    Set<Labels> seen = new HashSet<>();
    List<P> points = new ArrayList<>();
    for (MetricSnapshot part : parts) {
      if (!type.isInstance(part)) {
        continue;
      }
      for (DataPointSnapshot point : part.getDataPoints()) {
        if (seen.add(point.getLabels())) {
          points.add((P) point);
        }
      }
    }
    return points;
  }
}
