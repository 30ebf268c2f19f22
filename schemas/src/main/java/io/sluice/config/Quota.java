package io.sluice.config;

/**
 * A tenant's token bucket toward one provider.
 *
 * @param capacity the burst, in cost units (positive)
 * @param refill   the sustained rate, in cost units per second
 */
public record Quota(double capacity, Rate refill) {
  public Quota {
    if (!(capacity > 0)) {
      throw new IllegalArgumentException("capacity must be positive, got " + capacity);
    }
  }
}
