package io.sluice.config;

import java.net.URI;
import java.util.Optional;

/**
 * OpenTelemetry traces ({@code tracing:} in the file; docs/operations.md, "Traces"). Off unless
 * {@code otlpEndpoint} is set: then every stage an event passes (gate, relay, dispatcher wait,
 * each provider attempt, the outcome) is a span, exported over OTLP/HTTP (protobuf) to
 * {@code <otlpEndpoint>/v1/traces}. Read at start; changing it needs a restart.
 *
 * @param otlpEndpoint the OTLP/HTTP receiver's base URL (e.g. {@code http://collector:4318});
 *                     empty: tracing off, no SDK object made
 * @param sampleRatio  the share of new traces recorded, 0 to 1; an event with a producer's
 *                     {@code traceparent} follows its {@code sampled} flag instead
 * @param maxQueue     spans held for export at most; beyond it spans are dropped and counted
 *                     ({@code sluice_tracing_spans_dropped_total}), never waited for
 * @param serviceName  the {@code service.name} of the spans
 */
public record TracingConfig(Optional<URI> otlpEndpoint, double sampleRatio, int maxQueue,
    String serviceName) {
  /** Tracing off. */
  public static final TracingConfig OFF =
      new TracingConfig(Optional.empty(), 1.0, ConfigDefaults.TRACING_MAX_QUEUE, "sluice");

  public boolean enabled() {
    return otlpEndpoint.isPresent();
  }
}
