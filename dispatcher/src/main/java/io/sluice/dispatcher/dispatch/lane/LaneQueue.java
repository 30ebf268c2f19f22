package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.fair.FairQueue;
import io.sluice.dispatcher.fair.PriorityOrder;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A lane's queue: its bounded {@link FairQueue}, the tier weights it shares by, and the queued
 * costs its {@link LaneSchedule} claims by, kept in step.
 *
 * <p>Invariant: the schedule counts exactly the costs of the entries queued here. Every entry
 * enters through {@link #offer} and leaves through a method of this class, each of which tells
 * the schedule, so no caller can take one out and forget to.
 *
 * <p>Weights: the configured ones (a reload changes them), and the applied ones the fair queue
 * uses now, either those or this instance's part of a shared provider ({@code GlobalShare}).
 *
 * <p>Not thread-safe: its lane calls it under the lane's monitor.
 */
final class LaneQueue {
  private final FairQueue<DispatchEntry> queue;
  private final LaneSchedule schedule;
  private Map<String, Double> configuredWeights;
  private Map<String, Double> appliedWeights;

  LaneQueue(Map<String, Double> tierWeights, int bufferSize, LaneSchedule schedule) {
    this(tierWeights, bufferSize, schedule, PriorityOrder.byDefault());
  }

  LaneQueue(Map<String, Double> tierWeights, int bufferSize, LaneSchedule schedule,
      PriorityOrder order) {
    this.queue = new FairQueue<>(tierWeights, bufferSize, order);
    this.schedule = schedule;
    this.configuredWeights = Map.copyOf(tierWeights);
    this.appliedWeights = configuredWeights;
  }

  /**
   * Queues an entry, at its place among its tenant's by its priority class and {@code nowNanos}
   * ({@link PriorityOrder}). When the buffer is full, returns the entry
   * the fair queue would serve last (possibly this one), no longer queued.
   */
  Optional<DispatchEntry> offer(DispatchEntry entry, long nowNanos) {
    Optional<DispatchEntry> evicted = queue.offer(entry.tier(), entry.event().tenant(),
        entry.event().cost(), entry.event().priorityClass().rank(), nowNanos, entry);
    schedule.queued(entry.event().cost());
    evicted.ifPresent(this::left);
    return evicted;
  }

  /** Takes out the entry to serve next, if any. */
  Optional<DispatchEntry> poll() {
    Optional<DispatchEntry> next = queue.poll();
    next.ifPresent(this::left);
    return next;
  }

  /** The entry to serve next, left queued. */
  Optional<DispatchEntry> peek() {
    return queue.peek();
  }

  /** Takes out every queued entry {@code which} matches. */
  List<DispatchEntry> removeIf(Predicate<DispatchEntry> which) {
    List<DispatchEntry> removed = queue.removeIf(which);
    removed.forEach(this::left);
    return removed;
  }

  /**
   * Takes out every entry but the {@code keeps} to be served first, and returns them in the order
   * they would have been served.
   */
  List<DispatchEntry> keepFirst(int keeps) {
    ArrayDeque<DispatchEntry> removed = new ArrayDeque<>();
    while (queue.size() > keeps) {
      DispatchEntry e = queue.removeLast().orElseThrow();
      left(e);
      removed.addFirst(e);
    }
    return List.copyOf(removed);
  }

  private void left(DispatchEntry entry) {
    schedule.unqueued(entry.event().cost());
  }

  int size() {
    return queue.size();
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  int capacity() {
    return queue.capacity();
  }

  /** Busy tenants (with entries queued) per tier. */
  Map<String, Integer> busyTenantsByTier() {
    return queue.busyTenantsByTier();
  }

  /** Visits every queued entry with its tier and cost, changing nothing. */
  void forEachQueued(FairQueue.Visitor<DispatchEntry> visitor) {
    queue.forEachQueued(visitor);
  }

  /** The tier weights the fair queue shares by now. */
  Map<String, Double> appliedWeights() {
    return appliedWeights;
  }

  /** The configured tier weights. */
  Map<String, Double> configuredWeights() {
    return configuredWeights;
  }

  /** New configured tier weights, applied at once ({@link FairQueue#reweigh}). */
  void reweigh(Map<String, Double> tierWeights) {
    configuredWeights = Map.copyOf(tierWeights);
    weighBy(configuredWeights);
  }

  /** Shares by the configured weights again (the lane is alone, or not shared). */
  void weighAsConfigured() {
    weighBy(configuredWeights);
  }

  /** Shares by {@code weights} from now on; reweighs the fair queue only if they changed. */
  void weighBy(Map<String, Double> weights) {
    if (!weights.equals(appliedWeights)) {
      queue.reweigh(weights);
      appliedWeights = weights;
    }
  }
}
