/**
 * Hanging transactions: finding a Sluice producer's transaction left open on a partition (which
 * stops read_committed readers at it) and aborting it. {@code HangingTransactionJudge} decides
 * which open transaction is hanging; the views read the coordinator's and the admin client's
 * state; the sweeper acts.
 */
package io.sluice.app.hanging;
