package io.sluice.dispatcher.leak;

/**
 * Where a provider's lane gets the limits it enforces, asked once per claim. The default
 * ({@link #fixed}) returns the configured limits; an implementation may return lower ones learned
 * from the provider's answers (never higher than configured), or reloaded ones, and may change
 * between any two claims: a claim is decided against the limits of its own call, and Redis keys
 * are named by limit ({@code ProviderLimit#id()}), not by amount, so a changed amount keeps the
 * record of past calls. Must be cheap and thread-safe: it is called on the claim path.
 */
@FunctionalInterface
public interface LimitSource {
  /** The limits the next claim enforces. */
  ProviderLimits current();

  /** Always the same limits (the configured ones). */
  static LimitSource fixed(ProviderLimits limits) {
    return () -> limits;
  }
}
