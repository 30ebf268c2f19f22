package io.sluice.dispatcher.fair;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Weighted fair queueing by virtual finish time over a set of named flows: one level of a
 * {@link FairQueue} (the tiers of a provider, or the tenants of one tier). It owns the tags and the
 * orderings; what a flow holds, and so its head cost and queued cost, is the flow's business.
 *
 * <h2>Tags</h2>
 *
 * <p>Each flow with entries has a <em>start</em> tag for its head entry and a <em>finish</em> tag
 * {@code finish = start + headCost / weight}; the flow with the smallest finish is served next
 * (ties: the smaller name). Serving the head sets
 * {@code lastFinish = start + cost / weight}, and the next head starts at
 * {@code max(V, lastFinish)}.
 *
 * <p>A flow that comes back from idle starts at {@code max(V, lastFinish)}: it keeps what it has
 * been charged beyond {@code V} (a flow cannot dodge its bill by emptying and refilling), and it
 * gets no credit for the time it was away (it starts no earlier than now, in virtual time).
 *
 * <h2>Virtual time</h2>
 *
 * <p>{@code V} is the largest start tag served so far (start-time fair queueing's choice, kept
 * monotonic). Why that one: it needs no simulation of a reference fluid system (WFQ's GPS clock),
 * it moves only when something is served, so an idle system does not age anyone's tags, and it
 * never runs ahead of the backlogged flows: a head is tagged with {@code start >= V}, and the
 * served head has the smallest finish, so {@code V <= finish} of every waiting head. Hence a
 * continuously backlogged flow's next head starts exactly at its previous finish (its service
 * chains without gaps), while a returning flow starts at {@code V}, level with the entry last
 * served rather than where it left off: at most one entry ahead of a flow that never stopped.
 * (One head can fall below V when it is replaced by a cheaper one while waiting, see
 * {@link #change}; it is then served next, V does not move back, and the flow is charged from V.)
 *
 * <p>A head that is removed without being served (eviction, a revoked partition) charges nothing:
 * the flow keeps its start, so the next head takes the removed one's place in line, and a flow
 * left empty goes idle with its {@code lastFinish} unchanged.
 *
 * <h2>Last in line</h2>
 *
 * <p>Each flow with entries also carries {@code backlogFinish = start + queuedCost / weight}: the
 * finish tag its last entry will get if nothing else arrives (a backlogged flow's tags chain, so the
 * sum is exact whatever order its entries are served in). {@link #last()} is the flow with the
 * largest one (ties: the larger name). With no arrivals, the finish tags a flow is served at only
 * grow, so the serving order is the order of (finish, name) over all entries and {@code last()} is
 * exactly the flow that would be served last (up to the rounding of the sums in doubles).
 *
 * <h2>Forgetting flows</h2>
 *
 * <p>An empty flow whose {@code lastFinish <= V} would start at {@code V} whether it is remembered
 * or not, so it is dropped; empty flows with {@code lastFinish > V} are kept (ordered by it) until
 * {@code V} passes them. Memory is the flows with entries plus the recently served ones.
 *
 * <p>Cost: {@link #next()} and {@link #last()} O(log flows); {@link #change} and {@link #serve}
 * O(log flows) plus the mutation, plus amortized O(log flows) for forgetting. Tags are doubles:
 * at 10<sup>12</sup> units of virtual time they still resolve 10<sup>-4</sup>, far finer than
 * {@code cost / weight} for weights below a thousand. Not thread-safe.
 *
 * @param <F> the flow type
 */
final class VirtualTimeScheduler<F extends VirtualTimeScheduler.Flow> {

  /** A named, weighted queue of costed entries, as this scheduler sees it. */
  abstract static class Flow {
    final String name;
    /** Changed only through {@link VirtualTimeScheduler#reweigh}, which re-tags the flow. */
    double weight;
    /** Start tag of the head entry; meaningful while the flow has entries. */
    double start;
    /** {@code start + headCost / weight}, cached while the flow is in the ordered sets. */
    double finish;
    /** {@code start + queuedCost / weight}, cached while the flow is in the ordered sets. */
    double backlogFinish;
    /** Finish tag of the last entry served (0 for a new flow). */
    double lastFinish;
    /** Whether the flow is in {@code byFinish}/{@code byBacklogFinish} (it has entries). */
    boolean active;

    Flow(String name, double weight) {
      if (!(weight > 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("weight of " + name + " must be positive and finite: " + weight);
      }
      this.name = name;
      this.weight = weight;
    }

    /** Cost of the entry this flow gives up when served; only called when it has entries. */
    abstract int headCost();

    /** Total cost of the entries it holds. */
    abstract long queuedCost();

    abstract boolean isEmpty();
  }

  private static final Comparator<Flow> BY_FINISH = Comparator
      .comparingDouble((Flow f) -> f.finish)
      .thenComparing(f -> f.name);
  private static final Comparator<Flow> BY_BACKLOG_FINISH = Comparator
      .comparingDouble((Flow f) -> f.backlogFinish)
      .thenComparing(f -> f.name);
  private static final Comparator<Flow> BY_LAST_FINISH = Comparator
      .comparingDouble((Flow f) -> f.lastFinish)
      .thenComparing(f -> f.name);

  private final Function<String, F> newFlow;
  private final Map<String, F> flows = new HashMap<>();
  private final NavigableSet<F> byFinish = new TreeSet<>(BY_FINISH);
  private final NavigableSet<F> byBacklogFinish = new TreeSet<>(BY_BACKLOG_FINISH);
  /** Empty flows still remembered because {@code lastFinish > V}. */
  private final NavigableSet<F> idle = new TreeSet<>(BY_LAST_FINISH);
  /** V: the largest start tag served so far. */
  private double virtualTime;

  VirtualTimeScheduler(Function<String, F> newFlow) {
    this.newFlow = newFlow;
  }

  /** The flow of that name, created (empty, never served) if it is not remembered. */
  F flow(String name) {
    return flows.computeIfAbsent(name, newFlow);
  }

  /** The flow to serve next, or null when no flow has entries. */
  F next() {
    return byFinish.isEmpty() ? null : byFinish.first();
  }

  /** The flow whose backlog would finish last, or null when no flow has entries. */
  F last() {
    return byBacklogFinish.isEmpty() ? null : byBacklogFinish.last();
  }

  /** How many flows have entries. */
  int activeCount() {
    return byFinish.size();
  }

  /** A snapshot of the flows that have entries, in no particular order. */
  List<F> activeFlows() {
    return new ArrayList<>(byFinish);
  }

  double virtualTime() {
    return virtualTime;
  }

  /** A snapshot of the flows remembered: with entries, or idle and charged beyond V. */
  List<F> rememberedFlows() {
    return new ArrayList<>(flows.values());
  }

  /**
   * Runs a mutation that adds or removes entries of {@code flow} without serving it, and re-tags
   * the flow: one that had no entries starts at {@code max(V, lastFinish)}; one that had entries
   * keeps its start (its head, whichever entry that now is, keeps its place in line).
   */
  <R> R change(F flow, Supplier<R> mutation) {
    boolean wasActive = flow.active;
    detach(flow);
    try {
      return mutation.get();
    } finally { // even when the mutation fails half-way, the sets must reflect what the flow holds
      if (!wasActive && !flow.isEmpty()) {
        flow.start = Math.max(virtualTime, flow.lastFinish);
      }
      attach(flow);
    }
  }

  /**
   * Gives {@code flow} a new weight from now on. Service already charged stays charged at the old
   * weight (its start tag does not move); the head's finish and every later charge use the new
   * one. This is the usual rule for a weight change in WFQ: it is not retroactive, so a flow
   * cannot gain or lose past service by being reweighed, and long-run shares converge to the new
   * weights from the moment of the change.
   */
  void reweigh(F flow, double weight) {
    if (!(weight > 0) || Double.isInfinite(weight)) {
      throw new IllegalArgumentException("weight of " + flow.name + " must be positive and finite: " + weight);
    }
    update(flow, () -> flow.weight = weight);
  }

  /** {@link #change} for a mutation with no result. */
  void update(F flow, Runnable mutation) {
    change(flow, () -> {
      mutation.run();
      return null;
    });
  }

  /**
   * Serves {@code flow}'s head: {@code popHead} must remove exactly the entry whose cost
   * {@link Flow#headCost()} reported. Advances V to the head's start tag and charges the flow.
   */
  <R> R serve(F flow, Supplier<R> popHead) {
    if (!flow.active) {
      throw new IllegalStateException("flow " + flow.name + " has nothing to serve");
    }
    int cost = flow.headCost();
    detach(flow);
    R result = popHead.get();
    virtualTime = Math.max(virtualTime, flow.start);
    flow.lastFinish = flow.start + cost / flow.weight;
    // With V <= every waiting finish tag this is lastFinish: a backlogged flow's service chains.
    flow.start = Math.max(virtualTime, flow.lastFinish);
    attach(flow);
    forgetPassedFlows();
    return result;
  }

  private void detach(F flow) {
    if (flow.active) {
      byFinish.remove(flow);
      byBacklogFinish.remove(flow);
      flow.active = false;
    } else {
      idle.remove(flow);
    }
  }

  private void attach(F flow) {
    if (!flow.isEmpty()) {
      flow.finish = flow.start + flow.headCost() / flow.weight;
      flow.backlogFinish = flow.start + flow.queuedCost() / flow.weight;
      flow.active = true;
      byFinish.add(flow);
      byBacklogFinish.add(flow);
    } else if (flow.lastFinish > virtualTime) {
      idle.add(flow);
    } else {
      flows.remove(flow.name);
    }
  }

  private void forgetPassedFlows() {
    while (!idle.isEmpty() && idle.first().lastFinish <= virtualTime) {
      flows.remove(idle.pollFirst().name);
    }
  }
}
