package io.sluice.app.ops;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Names for Dropwizard metrics that carry Prometheus labels.
 *
 * <p>Dropwizard has flat names; Prometheus has a family name plus labels. We keep both in the one
 * string Dropwizard stores, written exactly as Prometheus writes a series:
 * <pre>{@code
 * MetricNames.name("sluice_gate_admitted", "tier", "pro", "provider", "payments-api")
 *   -> sluice_gate_admitted{provider="payments-api",tier="pro"}
 * }</pre>
 * Labels are sorted by name, so the same series always gets the same registry name whatever order
 * the caller wrote them in, and {@link PrometheusExposition} can read base and labels back
 * ({@link #parse}) and group every series of a family under one {@code # HELP}/{@code # TYPE}.
 *
 * <p>Rules, checked here so a mistake fails where it is made rather than at scrape time:
 * <ul>
 *   <li>The base is a Prometheus name without colons ({@code [a-zA-Z_][a-zA-Z0-9_]*}), and does
 *       not end in a suffix the exposition adds itself ({@code _total}, {@code _count},
 *       {@code _sum}, {@code _bucket}): a counter {@code x} is exposed as {@code x_total}.</li>
 *   <li>Label names are {@code [a-zA-Z_][a-zA-Z0-9_]*}, not reserved ({@code __*},
 *       {@code quantile}, {@code le}), each at most once; values are non-empty (Prometheus reads
 *       an empty value as "no such label").</li>
 *   <li><b>No tenant ids.</b> A label whose name contains {@code tenant} (any case) is refused.
 *       Tenants are unbounded and chosen by callers: one series per tenant would let any client
 *       grow the metric set without limit, and would publish who the customers are to whoever
 *       scrapes. Per-tenant numbers belong in logs or an analytics pipeline. The rule cannot see
 *       a tenant id passed as the value of some other label, nor one pasted into a base name:
 *       label values must come from bounded sets (tier, provider, reason, status class).</li>
 * </ul>
 */
public final class MetricNames {
  private static final Pattern BASE = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Set<String> RESERVED_SUFFIXES = Set.of("_total", "_count", "_sum", "_bucket");
  private static final Set<String> RESERVED_LABELS = Set.of("quantile", "le");

  private MetricNames() {}

  /**
   * The registry name of a series.
   *
   * @param labelPairs label name, value, name, value, ...
   * @throws IllegalArgumentException if a rule above is broken; the message names the rule
   */
  public static String name(String base, String... labelPairs) {
    checkBase(base);
    if (labelPairs.length % 2 != 0) {
      throw new IllegalArgumentException("labels of " + base + " must come in name, value pairs, got "
          + labelPairs.length + " strings");
    }
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      String label = labelPairs[i];
      String value = labelPairs[i + 1];
      checkLabel(base, label, value);
      if (labels.put(label, value) != null) {
        throw new IllegalArgumentException("label " + label + " of " + base + " is given twice");
      }
    }
    return new MetricName(base, labels).registryName();
  }

  /**
   * Reads a registry name back. A name built by {@link #name} gives its base and labels. Any other
   * name without braces (one a library registered, {@code kafka.producer.io-wait}) becomes a
   * base with no labels, every character Prometheus does not allow replaced by {@code _}. A name
   * with a label part that breaks the rules (a {@code tenant} label, bad escaping) gives empty:
   * such a metric is not exported at all, rather than exported under a mangled name that would
   * still carry the tenant id. So does a base ending in {@code _total}, {@code _count},
   * {@code _sum} or {@code _bucket}, whose samples could collide with another family's.
   */
  public static Optional<MetricName> parse(String registryName) {
    int brace = registryName.indexOf('{');
    if (brace < 0) {
      String base = sanitize(registryName);
      return endsInReservedSuffix(base) ? Optional.empty() : Optional.of(new MetricName(base, Map.of()));
    }
    String base = registryName.substring(0, brace);
    try {
      checkBase(base);
      LabelText.Parsed parsed = LabelText.parse(registryName, brace);
      if (parsed.end() != registryName.length()) {
        return Optional.empty();
      }
      for (Map.Entry<String, String> label : parsed.labels().entrySet()) {
        checkLabel(base, label.getKey(), label.getValue());
      }
      return Optional.of(new MetricName(base, parsed.labels()));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** A valid Prometheus name made from any string: {@code kafka.io-wait} -> {@code kafka_io_wait}. */
  static String sanitize(String name) {
    if (name.isEmpty()) {
      return "_";
    }
    StringBuilder out = new StringBuilder(name.length() + 1);
    if (name.charAt(0) >= '0' && name.charAt(0) <= '9') {
      out.append('_');
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean allowed = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      out.append(allowed ? c : '_');
    }
    return out.toString();
  }

  private static void checkBase(String base) {
    if (base == null || !BASE.matcher(base).matches()) {
      throw new IllegalArgumentException("metric name " + base
          + " is not a Prometheus name without colons ([a-zA-Z_][a-zA-Z0-9_]*)");
    }
    if (endsInReservedSuffix(base)) {
      throw new IllegalArgumentException("metric name " + base + " ends in _total, _count, _sum or"
          + " _bucket, which the exposition adds itself (a counter x is exposed as x_total)");
    }
  }

  private static boolean endsInReservedSuffix(String base) {
    return RESERVED_SUFFIXES.stream().anyMatch(base::endsWith);
  }

  private static void checkLabel(String base, String label, String value) {
    if (label == null || !LabelText.LABEL_NAME.matcher(label).matches()) {
      throw new IllegalArgumentException("label name " + label + " of " + base
          + " is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
    }
    if (label.startsWith("__") || RESERVED_LABELS.contains(label)) {
      throw new IllegalArgumentException("label name " + label + " of " + base + " is reserved by Prometheus");
    }
    if (label.toLowerCase(Locale.ROOT).contains("tenant")) {
      throw new IllegalArgumentException("label " + label + " of " + base
          + " would carry tenant ids: no tenant ids in metric names or labels (unbounded series, and"
          + " it publishes who the customers are); use bounded labels such as tier or provider");
    }
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("label " + label + " of " + base + " has no value");
    }
  }
}
