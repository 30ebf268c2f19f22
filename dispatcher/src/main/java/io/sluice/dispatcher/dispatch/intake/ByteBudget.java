package io.sluice.dispatcher.dispatch.intake;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.header.Header;

/**
 * The bytes of records a dispatcher holds read and not yet settled, per account, against
 * {@code dispatcher.bufferBytes}. Pure and single-threaded (the consumer thread owns it).
 *
 * <p>Why bytes: the buffers are bounded in records ({@code bufferSize} per provider), but a record
 * may carry a value of up to the gate's {@code maxPayloadBytes}; a thousand of them per provider
 * is gigabytes. Two rules keep the total bounded without one provider holding up another:
 * <ul>
 *   <li>each provider's account ({@link #admits}) may hold {@code total / accounts} bytes: a
 *       record beyond its provider's share overflows through the ladder, as a full buffer does,
 *       and the other providers keep reading. An empty account admits any one record, so that a
 *       record larger than the share still moves;</li>
 *   <li>everything together ({@link #shouldPause}): records being written (dead letters,
 *       deferrals) are held too, and a share full of overflow writes can pass its share while
 *       Kafka is slow. Past the whole budget reading pauses (Kafka, the common bottleneck, is what
 *       is slow then), and it resumes below half, so that it does not flap.</li>
 * </ul>
 * An account holds a record from the moment it is read until it is settled or dropped: queued,
 * in flight, or its settlement being written.
 */
final class ByteBudget {
  /** Per-record overhead beyond key, value and headers: the objects that hold them. */
  static final int RECORD_OVERHEAD = 256;

  private final long total;
  private final long share;
  private final Map<String, Long> used = new HashMap<>();
  private long sum;

  /**
   * @param total    the whole budget, bytes
   * @param accounts how many accounts share it equally (the providers)
   */
  ByteBudget(long total, int accounts) {
    if (total < 1 || accounts < 1) {
      throw new IllegalArgumentException("budget " + total + " over " + accounts + " accounts");
    }
    this.total = total;
    this.share = Math.max(1, total / accounts);
  }

  /** What one record costs: key, value, header names and values, and a fixed overhead. */
  static long sizeOf(byte[] key, byte[] value, Iterable<Header> headers) {
    long n = RECORD_OVERHEAD + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    for (Header h : headers) {
      n += h.key().length() + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }

  /** True when {@code account} may take {@code bytes} more within its share. */
  boolean admits(String account, long bytes) {
    long mine = used(account);
    return mine == 0 || mine + bytes <= share;
  }

  void add(String account, long bytes) {
    used.merge(account, bytes, Long::sum);
    sum += bytes;
  }

  void release(String account, long bytes) {
    Long left = used.computeIfPresent(account, (k, v) -> v - bytes <= 0 ? null : v - bytes);
    sum = Math.max(0, sum - bytes);
    if (left == null) {
      used.remove(account);
    }
  }

  long used(String account) {
    return used.getOrDefault(account, 0L);
  }

  long total() {
    return sum;
  }

  /**
   * Whether reading should be paused, given whether it is now: pause above the whole budget,
   * resume at or below half of it.
   */
  boolean shouldPause(boolean paused) {
    return paused ? sum > total / 2 : sum > total;
  }
}
