package io.sluice.app.ops;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A metric's base name and labels, as read back from a registry name by {@link MetricNames#parse}.
 *
 * @param base   a valid Prometheus metric name, before any suffix the exposition adds
 *               ({@code _total}, {@code _seconds}, {@code _count}, ...)
 * @param labels sorted by label name, never null
 */
record MetricName(String base, Map<String, String> labels) {
  public MetricName {
    labels = Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  /** The registry name: {@code base{a="x",b="y"}}, labels in name order, values escaped. */
  public String registryName() {
    StringBuilder out = new StringBuilder(base);
    LabelText.append(out, labels);
    return out.toString();
  }
}
