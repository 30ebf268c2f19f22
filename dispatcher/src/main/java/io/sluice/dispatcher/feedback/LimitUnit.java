package io.sluice.dispatcher.feedback;

/**
 * What a provider counts against a limit: calls, or cost units (an event's {@code cost}: the
 * tokens of an LLM API, the weight of a call in a points-based API).
 */
public enum LimitUnit {
  CALLS,
  COST;

  /** The lower-case name used in metrics, Redis and {@code /health}. */
  public String label() {
    return this == CALLS ? "calls" : "cost";
  }
}
