package io.sluice.dispatcher.fair;

import java.util.Collection;

/**
 * Jain's fairness index of a set of shares (R. Jain, D. Chiu, W. Hawe, 1984):
 * {@code (sum x)^2 / (n * sum x^2)}. It is 1 when every share is equal and {@code 1/n} when one
 * party gets everything; {@code k/n} when k parties share equally and the rest get nothing. It does
 * not depend on the unit (calls, cost, fractions), only on the proportions.
 *
 * <p>Example: shares 30, 30, 30, 10 give {@code 100^2 / (4 * 2800) = 0.893}.
 */
public final class JainIndex {
  private JainIndex() {
  }

  /**
   * @param shares at least one, none negative or NaN
   * @return the index in {@code [1/n, 1]}; 1 when every share is 0 (nobody got more than anyone)
   */
  public static double of(double... shares) {
    if (shares.length == 0) {
      throw new IllegalArgumentException("Jain's index needs at least one share");
    }
    double sum = 0;
    double sumOfSquares = 0;
    for (double x : shares) {
      if (!(x >= 0) || Double.isInfinite(x)) {
        throw new IllegalArgumentException("a share must be finite and not negative: " + x);
      }
      sum += x;
      sumOfSquares += x * x;
    }
    return sumOfSquares == 0 ? 1.0 : sum * sum / (shares.length * sumOfSquares);
  }

  /** {@link #of(double...)} of the values. */
  public static double of(Collection<? extends Number> shares) {
    return of(shares.stream().mapToDouble(Number::doubleValue).toArray());
  }
}
