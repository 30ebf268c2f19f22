package io.sluice.dispatcher.dispatch.offsets;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.common.TopicPartition;

/**
 * Calls delivered and not yet written to the {@link DeliveredLog}, batched so that the log costs
 * one write per partition per round ({@code everyMillis}), never one per event. Any thread adds
 * and takes (a queue each record is taken from once). Time is passed in (the dispatcher's clock, in
 * milliseconds).
 */
public final class PendingDeliveries {
  private record Delivery(TopicPartition partition, DeliveredLog.Delivered delivered,
      long addedMillis) {}

  private final long everyMillis;
  private final ConcurrentLinkedQueue<Delivery> pending = new ConcurrentLinkedQueue<>();
  /** When the last batch was taken (by the consumer thread, or the timer). */
  private volatile long lastTakenMillis;

  /** @param everyMillis the least time between two batches */
  public PendingDeliveries(long everyMillis) {
    this.everyMillis = everyMillis;
  }

  /**
   * A call of the record at {@code delivered.offset()} of {@code partition} was accepted (or the
   * record settled), at {@code nowMillis}. Any thread.
   */
  public void add(TopicPartition partition, DeliveredLog.Delivered delivered, long nowMillis) {
    pending.add(new Delivery(partition, delivered, nowMillis));
  }

  /**
   * The deliveries added since the last batch, by partition in the order they were added, if
   * there are any and {@code everyMillis} have passed since that batch; else nothing (and the
   * round does not start over).
   */
  public Map<TopicPartition, List<DeliveredLog.Delivered>> takeIfDue(long nowMillis) {
    return takeIfDue(nowMillis, 0);
  }

  /**
   * As {@link #takeIfDue(long)}, of the deliveries added at least {@code minAgeMillis} before
   * {@code nowMillis} only (in the order added: from the first younger one on, they wait for a
   * later round).
   */
  public Map<TopicPartition, List<DeliveredLog.Delivered>> takeIfDue(long nowMillis,
      long minAgeMillis) {
    if (pending.isEmpty() || nowMillis - lastTakenMillis < everyMillis) {
      return Map.of();
    }
    return take(nowMillis, nowMillis - minAgeMillis);
  }

  /**
   * Every delivery added so far, whenever the last batch was: a partition handed over must have
   * its deliveries in the log before its next owner reads it.
   */
  public Map<TopicPartition, List<DeliveredLog.Delivered>> takeNow(long nowMillis) {
    return pending.isEmpty() ? Map.of() : take(nowMillis, Long.MAX_VALUE);
  }

  /** Takes, from the head, the deliveries added at or before {@code addedBy}. */
  private Map<TopicPartition, List<DeliveredLog.Delivered>> take(long nowMillis, long addedBy) {
    Map<TopicPartition, List<DeliveredLog.Delivered>> byPartition = new LinkedHashMap<>();
    Delivery d;
    while ((d = pending.peek()) != null && d.addedMillis() <= addedBy) {
      if (pending.remove(d)) { // else another taker (the timer, a hand-over) took it
        byPartition.computeIfAbsent(d.partition(), k -> new ArrayList<>()).add(d.delivered());
      }
    }
    if (!byPartition.isEmpty()) {
      lastTakenMillis = nowMillis;
    }
    return byPartition;
  }
}
