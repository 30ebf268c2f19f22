package io.sluice.dispatcher.dispatch.lane;

import io.sluice.config.BatchRule;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * What goes into the next batch of a lane whose provider takes several events in one call
 * ({@link BatchRule}): asked of the head of the fair queue, one head at a time, as a due slot
 * fills its call. Pure: the lane passes in what it knows of each head and the instants.
 *
 * <p>The heads are taken in the fair queue's order and the fill stops at the first one that does
 * not fit: skipping it for a later one would let a tenant overtake another by the shape of its
 * events. A head past its deadline is taken out (dead-lettered {@code expired}, never sent) and
 * the fill goes on. A head fits when, besides the first (which always goes, even larger than
 * {@code maxBytes} alone, its cost having been checked against the slot already):
 * <ol>
 *   <li>the batch has fewer than {@code maxEvents};</li>
 *   <li>it goes to the same destination: the same path and attributes (one URL, one set of
 *       forwarded headers for the whole call);</li>
 *   <li>the summed cost stays within what the slot reserved (every cost window then holds at
 *       least the cost the provider is sent, as for a single call);</li>
 *   <li>the body stays within {@code maxBytes}: the array's brackets, the commas and each payload;</li>
 *   <li>no event of its ordering key is in the batch already: at most one event per key is in
 *       flight, the simple rule that keeps a key's order whatever the answer says of each item.</li>
 * </ol>
 *
 * <p><b>maxWait.</b> A slot that finds fewer than {@code maxEvents} queued goes unused (wasted,
 * {@code filling}) while the lane's previous call started less than {@code maxWait} ago: a
 * half-empty call would spend a call of the provider's window that a full one could use. The wait
 * never exceeds {@code maxWait} from the previous call, and is none with the default 0.
 */
final class BatchFill {
  /** What the fill does with a head. */
  enum Step {
    /** Into the batch. */
    TAKE,
    /** Out of the queue, past its deadline: dead-lettered {@code expired}, never sent. */
    EXPIRE,
    /** Stays queued: the batch is full, or the head does not fit; the call goes as it is. */
    STOP
  }

  /**
   * What the fill knows of a head.
   *
   * @param cost        its cost
   * @param bytes       its payload's bytes in the body ({@code null} for an event without one)
   * @param destination its path and attributes, as one comparable value
   * @param orderingKey its tenant's ordering key, or null when it has none (or the provider does
   *                    not order)
   * @param expired     its deadline has passed
   */
  record Head(long cost, int bytes, Object destination, String orderingKey, boolean expired) {}

  private final BatchRule rule;
  private final long maxCost;
  private final Set<String> keys = new HashSet<>();
  private int events;
  private long cost;
  /** The body so far: "[" and "]" and each payload with a comma between. */
  private long bytes = 2;
  private Object destination;

  /**
   * @param rule    the provider's batch settings ({@link BatchRule#on()})
   * @param maxCost the cost the slot reserved ({@code Long.MAX_VALUE} when cost is not counted)
   */
  BatchFill(BatchRule rule, long maxCost) {
    this.rule = rule;
    this.maxCost = maxCost;
  }

  /** What to do with {@code head}; a taken head is counted in the batch. */
  Step offer(Head head) {
    if (head.expired()) {
      return Step.EXPIRE;
    }
    long grownBytes = bytes + head.bytes() + (events == 0 ? 0 : 1);
    if (events > 0) {
      if (events >= rule.maxEvents()
          || !Objects.equals(destination, head.destination())
          || cost + head.cost() > maxCost
          || grownBytes > rule.maxBytes()
          || (head.orderingKey() != null && keys.contains(head.orderingKey()))) {
        return Step.STOP;
      }
    }
    events++;
    cost += head.cost();
    bytes = grownBytes;
    destination = head.destination();
    if (head.orderingKey() != null) {
      keys.add(head.orderingKey());
    }
    return Step.TAKE;
  }

  /** Events taken so far. */
  int events() {
    return events;
  }

  /** Their summed cost. */
  long cost() {
    return cost;
  }

  /**
   * Whether a due slot calls now with {@code queued} events waiting: always when they fill a
   * batch, else only once {@code maxWait} has passed since the lane's previous call started
   * ({@code lastCallNanos}, or never: {@code Long.MIN_VALUE}).
   */
  static boolean mayCall(BatchRule rule, int queued, long nowNanos, long lastCallNanos) {
    if (queued >= rule.maxEvents() || rule.maxWait().isZero()
        || lastCallNanos == Long.MIN_VALUE) {
      return true;
    }
    return nowNanos - lastCallNanos >= rule.maxWait().toNanos();
  }
}
