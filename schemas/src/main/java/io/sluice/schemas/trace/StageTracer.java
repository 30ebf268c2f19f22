package io.sluice.schemas.trace;

/**
 * Where the stages (gate, relay, dispatcher) begin their spans. The roles see only this seam; the
 * OpenTelemetry SDK behind it lives in the application shell ({@code app}), and only when
 * {@code tracing.otlpEndpoint} is set. With tracing off every role holds {@link #OFF}, checks
 * {@link #enabled()} once per event and does nothing else: no header read, no object made.
 *
 * <p>Thread-safe: every thread of every role begins spans on one tracer.
 */
public interface StageTracer {
  /** False for {@link #OFF}: callers skip reading headers and building attributes. */
  boolean enabled();

  /**
   * Begins a span named {@code name} at {@code startEpochMillis}, a child of {@code parent} (the
   * event's trace so far), or the root of a new trace when {@code parent} is null. Never throws
   * and never blocks.
   */
  StageSpan begin(String name, TraceParent parent, long startEpochMillis);

  /** Tracing switched off. */
  StageTracer OFF = new StageTracer() {
    @Override
    public boolean enabled() {
      return false;
    }

    @Override
    public StageSpan begin(String name, TraceParent parent, long startEpochMillis) {
      return StageSpan.NONE;
    }
  };
}
