package io.sluice.schemas.trace;

/**
 * One stage's span of one event, begun by a {@link StageTracer}: attributes are set while it is
 * open, and {@link #end} ends it at a time the caller read (its clock, passed in). Attributes are
 * codes, times and identifiers (tenant, provider, reason, decision, status), never a payload, an
 * attribute of the event or a secret. Not thread-safe: one thread owns a span at a time.
 */
public interface StageSpan {
  /** The context a next hop is a child of; null for {@link #NONE}. */
  TraceParent context();

  StageSpan set(String key, String value);

  StageSpan set(String key, long value);

  /** Marks the span failed (a dead letter, a provider's error), with a short description. */
  StageSpan failed(String description);

  /** Ends the span at {@code epochMillis}; it is exported later, off the caller's thread. */
  void end(long epochMillis);

  /** The span of tracing switched off: does nothing, carries no context. */
  StageSpan NONE = new StageSpan() {
    @Override
    public TraceParent context() {
      return null;
    }

    @Override
    public StageSpan set(String key, String value) {
      return this;
    }

    @Override
    public StageSpan set(String key, long value) {
      return this;
    }

    @Override
    public StageSpan failed(String description) {
      return this;
    }

    @Override
    public void end(long epochMillis) {}
  };
}
