package io.sluice.dispatcher.fair;

import java.time.Duration;

/**
 * In which order one tenant's own waiting entries are served: by priority class, then by arrival,
 * with an aging bound so that a lower class still progresses. Pure: every instant is passed in.
 *
 * <h2>The rule</h2>
 *
 * <p>An entry of class rank {@code r} (0 for the highest class, {@code high}; 1 for
 * {@code normal}; 2 for {@code low}) that arrived at {@code t} is served at its turn
 * {@code t + r · aging}, the smallest turn first; on equal turns the higher class, then the earlier
 * arrival. So, with {@code aging} = 30 s ({@code dispatcher.priorityAging}'s default):
 *
 * <ul>
 *   <li>entries of one class are served in arrival order (FIFO, as before classes existed: a
 *       tenant whose events name no class is served exactly as it was);</li>
 *   <li>a {@code high} entry goes before every {@code normal} entry that arrived less than 30 s
 *       before it, and every {@code low} one that arrived less than 60 s before it;</li>
 *   <li><b>aging</b>: an entry that has waited {@code aging} is served as if it were one class
 *       higher and had just arrived; whatever arrives after that, however high its class, goes
 *       behind it once it has waited {@code aging} per class between them. No entry is overtaken
 *       by one that arrived more than {@code 2 · aging} after it: a {@code low} entry waits at
 *       most for what was queued ahead of it, plus what its tenant sends in the next
 *       {@code 2 · aging}, and then for nothing that arrives later. Under a tenant's
 *       {@code high} entries arriving as fast as its share serves them, its {@code low} ones are
 *       served once they have waited {@code 2 · aging} ({@code PriorityOrderTest}).</li>
 * </ul>
 *
 * <p>Why turns rather than an age that grows while the entry waits (its class raised every
 * {@code aging} it waits, entries of one raised class by arrival): with that rule, a backlog of
 * {@code low} entries older than {@code 2 · aging} all count as {@code high} and arrived first, so
 * a {@code high} entry sent now waits behind the whole backlog, the very wait classes are for.
 * With turns, an entry's place never changes while it waits (the order of two entries is fixed
 * when the second arrives), so a tenant's queue is a few FIFO lists, one per class, whose heads
 * and tails are compared: O(classes) per decision.
 *
 * <p>What the rule never touches: which tenant or tier is served. The fair queue chooses the
 * tenant by its share; this rule only picks which of that tenant's entries goes, and that
 * entry's cost is charged to the tenant as any other.
 */
public final class PriorityOrder {
  /** The aging bound used unless another is given ({@code dispatcher.priorityAging}'s default). */
  public static final Duration DEFAULT_AGING = Duration.ofSeconds(30);

  private final long agingNanos;

  /** @param aging how long a waiting entry takes to count as one class higher; positive */
  public PriorityOrder(Duration aging) {
    if (aging.isNegative() || aging.isZero()) {
      throw new IllegalArgumentException("aging must be positive: " + aging);
    }
    this.agingNanos = aging.toNanos();
  }

  /** The aging bound of {@link #DEFAULT_AGING}. */
  public static PriorityOrder byDefault() {
    return new PriorityOrder(DEFAULT_AGING);
  }

  /**
   * An entry's turn: {@code arrivedNanos + rank · aging} (saturating; only compared with other
   * turns of the same clock).
   *
   * @param rank         0 for the highest class
   * @param arrivedNanos when the entry started waiting, on the caller's monotonic clock
   */
  public long turn(int rank, long arrivedNanos) {
    if (rank < 0) {
      throw new IllegalArgumentException("rank must be 0 or more: " + rank);
    }
    long delay;
    try {
      delay = Math.multiplyExact(agingNanos, (long) rank);
    } catch (ArithmeticException e) {
      delay = Long.MAX_VALUE;
    }
    long turn = arrivedNanos + delay;
    // Saturate: an overflow makes the sum's sign differ from both positive-signed operands'.
    return ((arrivedNanos ^ turn) & (delay ^ turn)) < 0 ? Long.MAX_VALUE : turn;
  }

  /**
   * Negative when entry {@code a} is served before entry {@code b}, positive when after, 0 only
   * for the same class and arrival (the caller then keeps their order of arrival).
   */
  public int compare(int rankA, long arrivedA, int rankB, long arrivedB) {
    int byTurn = Long.compare(turn(rankA, arrivedA), turn(rankB, arrivedB));
    if (byTurn != 0) {
      return byTurn;
    }
    int byClass = Integer.compare(rankA, rankB);
    return byClass != 0 ? byClass : Long.compare(arrivedA, arrivedB);
  }
}
