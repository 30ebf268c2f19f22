package io.sluice.dispatcher.feedback;

import java.util.List;

/**
 * The steady call rate that keeps a provider within every limit it announced: the configured
 * rate, lowered to each learned limit's pace. Pure.
 *
 * <p>A learned limit {@code q per W} is spent at a steady pace rather than in bursts: the leak
 * starts at most {@code rate * T + 1} calls in any window {@code T}, and the network may bring one
 * more interval's calls into a window at the provider, so a pace of {@code (q - 2) / W} keeps every
 * window of {@code W}, sliding or fixed, at or below {@code q} (for windows of a second or less,
 * {@code (q - 1) / W}: the margin the leak's own precision figures show, 24/s at a strict 25/s
 * provider). That spends 99.7% of 600 calls a minute and 95% of 20 calls a second. A cost limit is
 * paced in calls through the typical cost of a call ({@code q_cost / W / cost}, with two calls'
 * cost as the margin); with costs that vary a lot that is an average, not a bound.
 *
 * <p>The configured rate is never exceeded: learning only lowers. A limit too small to pace (a
 * quota of one or two) gives its plain average.
 */
final class LearnedRate {
  /**
   * The slowest pace learning sets (one call in about three hours): the leak needs a positive rate, and a quota
   * of 0 is a provider saying "wait", which its holds express.
   */
  public static final double MIN_PER_SECOND = 0.0001;

  private LearnedRate() {}

  /**
   * @param configured  the configured leak rate, calls per second
   * @param learned     the provider's live learned limits
   * @param typicalCost the cost of a typical call (at least 1)
   */
  public static double perSecond(double configured, List<LearnedLimit> learned,
      double typicalCost) {
    return Math.max(MIN_PER_SECOND, unfloored(configured, learned, typicalCost));
  }

  /**
   * The same, never below {@code floor} of the configured rate ({@code learnedFloor}): what one
   * provider's answers can slow it to.
   */
  public static double perSecond(double configured, List<LearnedLimit> learned,
      double typicalCost, double floor) {
    return Math.max(floor * configured, perSecond(configured, learned, typicalCost));
  }

  /** The pace of {@link #perSecond} before any floor (may be 0). */
  static double unfloored(double configured, List<LearnedLimit> learned, double typicalCost) {
    double rate = configured;
    double cost = Math.max(1, typicalCost);
    for (LearnedLimit l : learned) {
      double perCall = l.unit() == LimitUnit.CALLS ? 1 : cost;
      double margin = (l.windowMillis() <= 1000 ? 1 : 2) * perCall;
      double quota = l.quota() > margin ? l.quota() - margin : l.quota();
      rate = Math.min(rate, quota * 1000.0 / l.windowMillis() / perCall);
    }
    return rate;
  }
}
