package io.sluice.app.ops;

import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.List;
import java.util.Map;

/**
 * Tells Prometheus' Dropwizard bridge the family name and labels of a registry name built by
 * {@link MetricNames}: {@code sluice_gate_admitted{provider="payments-api",tier="pro"}} is family
 * {@code sluice_gate_admitted} with labels provider and tier.
 *
 * <p>Why not the bridge's own {@link MapperConfig} globs: they read Graphite names
 * ({@code sluice_gate_admitted.payments-api.pro}), one pattern per family, and a label value
 * with a dot in it would shift every label after it. Our registry names already carry the labels
 * in Prometheus syntax, so reading them back is exact. Both lookups are overridden, so the
 * configuration handed to the parent (it refuses an empty list) never matches anything.
 *
 * <p>Only names {@link MetricNames#parse} accepts may reach this mapper; the exposition filters
 * the others (a {@code tenant} label) out before the bridge sees them.
 */
final class LabelledNames extends CustomLabelMapper {
  private static final List<MapperConfig> UNUSED =
      List.of(new MapperConfig("unused.never_matches", "unused", Map.of()));
  private static final String METER_SUFFIX = "_total";

  LabelledNames() {
    super(UNUSED);
  }

  @Override
  public String getName(String registryName) {
    // For a meter the bridge asks about the registry name with "_total" appended: x{a="1"}_total.
    if (registryName.endsWith("}" + METER_SUFFIX)) {
      return getName(registryName.substring(0, registryName.length() - METER_SUFFIX.length()))
          + METER_SUFFIX;
    }
    return parse(registryName).base();
  }

  @Override
  public Labels getLabels(String registryName, List<String> extraNames, List<String> extraValues) {
    Labels.Builder labels = Labels.builder();
    parse(registryName).labels().forEach(labels::label);
    for (int i = 0; i < extraNames.size(); i++) {
      labels.label(extraNames.get(i), extraValues.get(i));
    }
    return labels.build();
  }

  private static MetricName parse(String registryName) {
    return MetricNames.parse(registryName).orElseThrow(() -> new IllegalArgumentException(
        "not a name MetricNames accepts, so it must not be exported: " + registryName));
  }
}
