package io.sluice.app.ops;

import io.sluice.app.hanging.HangingTransactionSweeper;

/**
 * The hanging-transaction sweeper as a {@code /health} entry ({@code hangingTransactions}):
 * {@code "sweeping 3 topics"} while it works; what fails and what the role's principal needs
 * while anything fails (an ACL missing on a secured cluster, say); {@code "off (...)"} when
 * turned off. Informational: the roles work without it, so it never makes an instance DOWN; a
 * hanging transaction itself shows as a partition held back.
 */
public final class HangingTransactionsHealth implements HealthCheck {
  private final HangingTransactionSweeper sweeper;

  private HangingTransactionsHealth(HangingTransactionSweeper sweeper) {
    this.sweeper = sweeper;
  }

  /** @param sweeper the running sweeper, or null when it is turned off */
  public static HangingTransactionsHealth of(HangingTransactionSweeper sweeper) {
    return new HangingTransactionsHealth(sweeper);
  }

  @Override
  public String name() {
    return "hangingTransactions";
  }

  @Override
  public Result check() {
    return Result.reachable(sweeper == null
        ? "off (kafka.hangingTransactions.sweep: false): an operator ends hanging transactions"
        : sweeper.status());
  }
}
