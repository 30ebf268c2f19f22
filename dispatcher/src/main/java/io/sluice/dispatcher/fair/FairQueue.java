package io.sluice.dispatcher.fair;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A provider's bounded waiting room: it decides whose event is called next when the provider is
 * contended, and whose is pushed back when the room is full.
 *
 * <h2>How is it fair, and to whom?</h2>
 *
 * <p>Two levels, one algorithm ({@link VirtualTimeScheduler}: weighted fair queueing by virtual
 * finish time, with start-time fair queueing's virtual clock).
 *
 * <ol>
 *   <li>Across <b>tiers</b>, by weight. The tier's next entry gets
 *       {@code start = max(V, the tier's previous finish)} and
 *       {@code finish = start + cost / weight}; the smallest finish goes first. With tiers
 *       {@code gold: 8, silver: 4, free: 1} all backlogged at cost 1, gold's entries finish at
 *       1/8, 2/8, 3/8..., silver's at 1/4, 2/4..., free's at 1, 2...: in each unit of virtual
 *       time, 8 gold, 4 silver and 1 free entries are served, 8:4:1. Costs count: a gold entry of
 *       cost 8 finishes 1 after its start, the same as one free entry of cost 1, so it is the
 *       <em>cost</em> (calls, tokens, bytes...) that is shared by weight, not the entry count.</li>
 *   <li>Inside a tier, across <b>tenants</b>, by cost with equal weights (the same scheduler with
 *       every weight 1, rather than deficit round robin: one mechanism to reason about, exact
 *       cost shares at every instant rather than per round, and the same "last in line" rule
 *       for eviction). A tenant with 10,000 entries waiting and a tenant with 10 get the same
 *       share while both have something waiting: queue length buys nothing.</li>
 *   <li>Inside a tenant, by priority class then arrival, with an aging bound
 *       ({@link PriorityOrder}); FIFO when its entries are all of one class. The class picks
 *       which of the tenant's entries goes when the tenant's turn comes, never whether it comes:
 *       the tenant is charged the cost of whichever entry it is served, so its share is the same
 *       whatever its entries' classes.</li>
 * </ol>
 *
 * <p><b>Work-conserving, no banked credit.</b> If free has nothing waiting, gold and silver split
 * everything 8:4. {@code V} is the start tag of the entry last served (kept monotonic). Say V is
 * 100 when free returns after an absence during which it was charged only up to 37: its next entry
 * starts at {@code max(100, 37) = 100}, finishes at 101, and goes behind the gold and silver
 * entries that finish before 101 (at most 8 and 4, the rest of the current round): its 1 in 13
 * from now on, and no burst for the 63 units it was away. It cannot cheat the
 * other way either: a tier (or tenant) that empties and refills keeps the finish it was charged
 * up to, when that is ahead of V.
 *
 * <p>Tags are attached to a tier's head lazily: the tier's head is whichever entry its tenant
 * level would serve next, so a new tenant arriving in a waiting tier can change the tier's head
 * cost (the tier keeps its start tag; only its finish moves). A tier is charged exactly
 * {@code cost / weight} for each entry it is served, so long-run shares are exact; the head-cost
 * change only reorders entries within one head's worth of virtual time.
 *
 * <h2>Who goes when the room is full?</h2>
 *
 * <p>The entry that would be served last if nothing else arrived. A flow's backlog finishes at
 * {@code start + queuedCost / weight} (a backlogged flow's tags chain, so this is the finish tag
 * of its last entry, whatever the order inside). The evicted entry is the <em>newest</em> entry of
 * the tenant whose queue finishes last, inside the tier whose queue finishes last. Example, at
 * capacity 10: gold (8) holds one entry of tenant {@code a}, free (1) holds 9 of tenant {@code b},
 * all cost 1, V = 0. Gold's backlog finishes at 1/8, free's at 9; offering a tenth entry to gold
 * evicts {@code b}'s newest, not {@code a}'s (nor the one just offered). With no arrivals the
 * entries are served in the order of their finish tags (ties: by tier name, then tenant name), so
 * this is exactly the last one, up to the rounding of the tag sums in doubles; what arrives later
 * can of course still go behind it.
 *
 * <p><b>Removal.</b> {@link #removeIf} (a revoked partition) charges nothing for what it removes:
 * the tenant and the tier keep their start tags, so the next entries take the removed ones' place
 * in line, and a tenant or tier left empty keeps the finish it was charged up to.
 *
 * <p><b>Unknown tiers.</b> A tier that is not in the weights map gets the smallest configured
 * weight: an unconfigured tier is never favoured over a configured one.
 *
 * <p><b>Cost.</b> {@link #offer}, {@link #poll} and {@link #peek}: O(log tiers + log tenants in
 * the tier). {@link #removeIf}: O(entries). Memory: the entries, plus a few doubles per tier and
 * per tenant that has entries or was served recently. Not thread-safe: the caller synchronizes.
 *
 * @param <T> what is queued (an event, a record with its partition and offset...)
 */
public final class FairQueue<T> {

  private Map<String, Double> tierWeights;
  private double unknownTierWeight;
  private final int capacity;
  private final VirtualTimeScheduler<Tier<T>> tiers;
  private final PriorityOrder order;
  private int size;
  /** The latest arrival offered, the arrival of an entry offered without one. */
  private long latestArrival = Long.MIN_VALUE;

  /**
   * @param tierWeights weight of each tier, positive and finite, at least one; tiers not in the
   *                    map get the smallest weight in it
   * @param capacity    how many entries the queue holds at most, at least 1
   */
  public FairQueue(Map<String, Double> tierWeights, int capacity) {
    this(tierWeights, capacity, PriorityOrder.byDefault());
  }

  /**
   * @param tierWeights weight of each tier, positive and finite, at least one; tiers not in the
   *                    map get the smallest weight in it
   * @param capacity    how many entries the queue holds at most, at least 1
   * @param order       the order of one tenant's entries among themselves
   */
  public FairQueue(Map<String, Double> tierWeights, int capacity, PriorityOrder order) {
    checkWeights(tierWeights);
    this.order = Objects.requireNonNull(order, "order");
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.tierWeights = Map.copyOf(tierWeights);
    this.unknownTierWeight = Collections.min(this.tierWeights.values());
    this.capacity = capacity;
    this.tiers = new VirtualTimeScheduler<>(name -> new Tier<>(name, weightOf(name), order));
  }

  private static void checkWeights(Map<String, Double> tierWeights) {
    if (tierWeights.isEmpty()) {
      throw new IllegalArgumentException("at least one tier weight is needed");
    }
    tierWeights.forEach((tier, weight) -> {
      if (weight == null || !(weight > 0) || weight.isInfinite()) {
        throw new IllegalArgumentException("weight of tier " + tier + " must be positive and finite: " + weight);
      }
    });
  }

  /**
   * New tier weights (a configuration reload), from now on: queued entries stay queued, service
   * already given stays charged at the old weights, and every tier is scheduled with its new weight
   * (see {@link VirtualTimeScheduler#reweigh}). Tiers not in the map get the smallest weight in it.
   */
  public void reweigh(Map<String, Double> tierWeights) {
    checkWeights(tierWeights);
    this.tierWeights = Map.copyOf(tierWeights);
    this.unknownTierWeight = Collections.min(this.tierWeights.values());
    for (Tier<T> tier : tiers.rememberedFlows()) {
      tiers.reweigh(tier, weightOf(tier.name));
    }
  }

  /** The weight entries of {@code tier} are scheduled with. */
  public double weightOf(String tier) {
    return tierWeights.getOrDefault(tier, unknownTierWeight);
  }

  /**
   * Adds {@code item} at the back of {@code tenant}'s queue in {@code tier}. If the queue then
   * holds more than its capacity, removes the entry it would serve last and returns it (which may
   * be {@code item} itself).
   *
   * @param cost what serving the item uses up (calls, tokens...), at least 1
   * @return the evicted item, or empty when there was room
   */
  public Optional<T> offer(String tier, String tenant, int cost, T item) {
    return offer(tier, tenant, cost, 0, latestArrival, item);
  }

  /**
   * Adds {@code item} to {@code tenant}'s queue in {@code tier}, at its place by class and
   * arrival ({@link PriorityOrder}). If the queue then holds more than its capacity, removes the
   * entry it would serve last and returns it (which may be {@code item} itself).
   *
   * @param cost         what serving the item uses up (calls, tokens...), at least 1
   * @param rank         the item's class, 0 for the highest
   * @param arrivedNanos now, on the caller's monotonic clock; an arrival earlier than the latest
   *                     of the same tenant and class counts as that latest (FIFO within a class)
   * @return the evicted item, or empty when there was room
   */
  public Optional<T> offer(String tier, String tenant, int cost, int rank, long arrivedNanos, T item) {
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(item, "item");
    if (cost < 1) {
      throw new IllegalArgumentException("cost must be at least 1: " + cost);
    }
    if (rank < 0) {
      throw new IllegalArgumentException("rank must be 0 or more: " + rank);
    }
    latestArrival = Math.max(latestArrival, arrivedNanos);
    Tier<T> t = tiers.flow(tier);
    tiers.update(t, () -> t.add(tenant, new Entry<>(item, cost, rank, arrivedNanos)));
    size++;
    if (size <= capacity) {
      return Optional.empty();
    }
    Tier<T> last = tiers.last();
    Entry<T> evicted = tiers.change(last, last::removeLast);
    size--;
    return Optional.of(evicted.item());
  }

  /**
   * Removes and returns the entry the queue would serve last (as a full queue evicts it), or
   * empty when the queue is empty.
   */
  public Optional<T> removeLast() {
    if (size == 0) {
      return Optional.empty();
    }
    Tier<T> last = tiers.last();
    Entry<T> removed = tiers.change(last, last::removeLast);
    size--;
    return Optional.of(removed.item());
  }

  /** Removes and returns the entry to serve next, or empty when the queue is empty. */
  public Optional<T> poll() {
    Tier<T> next = tiers.next();
    if (next == null) {
      return Optional.empty();
    }
    Entry<T> entry = tiers.serve(next, next::serveHead);
    size--;
    return Optional.of(entry.item());
  }

  /** The entry {@link #poll()} would return, left in place. */
  public Optional<T> peek() {
    Tier<T> next = tiers.next();
    return next == null ? Optional.empty() : Optional.of(next.head().item());
  }

  /**
   * Removes every entry whose item matches, without charging its tenant or tier: they keep their
   * place in line, as if those entries had never been offered.
   *
   * @return the removed items, grouped by tier and tenant, in serving order within a tenant
   */
  public List<T> removeIf(Predicate<? super T> filter) {
    List<T> removed = new ArrayList<>();
    try {
      for (Tier<T> tier : tiers.activeFlows()) {
        tiers.update(tier, () -> tier.removeIf(filter, removed));
      }
    } finally { // a filter that throws leaves the queue consistent, less what it already matched
      size -= removed.size();
    }
    return removed;
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public int capacity() {
    return capacity;
  }

  /**
   * How many tenants of each tier have entries queued (tiers with none are left out): what this
   * queue asks of its provider, which instances sharing the provider publish to split it fairly
   * between them ({@link GlobalShare}).
   */
  public Map<String, Integer> busyTenantsByTier() {
    Map<String, Integer> busy = new HashMap<>();
    for (Tier<T> tier : tiers.activeFlows()) {
      busy.put(tier.name, tier.tenants.activeCount());
    }
    return busy;
  }

  /**
   * Visits every queued item with its tier, tenant and cost, changing nothing (no tag moves, no
   * order promised): what a caller counts about what waits. O(entries).
   */
  public void forEachQueued(Visitor<? super T> visitor) {
    for (Tier<T> tier : tiers.activeFlows()) {
      for (Tenant<T> tenant : tier.tenants.activeFlows()) {
        for (ArrayDeque<Entry<T>> rank : tenant.byRank) {
          for (Entry<T> entry : rank) {
            visitor.visit(tier.name, tenant.name, entry.cost(), entry.item());
          }
        }
      }
    }
  }

  /** What {@link #forEachQueued} hands each queued item with. */
  @FunctionalInterface
  public interface Visitor<T> {
    void visit(String tier, String tenant, int cost, T item);
  }

  /** Tiers and tenants remembered (with entries or with credit owed); for tests of memory. */
  int rememberedFlows() {
    int n = 0;
    for (Tier<T> tier : tiers.rememberedFlows()) {
      n += 1 + tier.tenants.rememberedFlows().size();
    }
    return n;
  }

  private record Entry<T>(T item, int cost, int rank, long arrived) {
  }

  /** A tier: its tenants, scheduled among themselves with equal weights. */
  private static final class Tier<T> extends VirtualTimeScheduler.Flow {
    final VirtualTimeScheduler<Tenant<T>> tenants;
    int count;
    long queuedCost;

    Tier(String name, double weight, PriorityOrder order) {
      super(name, weight);
      this.tenants = new VirtualTimeScheduler<>(tenant -> new Tenant<>(tenant, order));
    }

    void add(String tenant, Entry<T> entry) {
      Tenant<T> t = tenants.flow(tenant);
      tenants.update(t, () -> t.add(entry));
      count++;
      queuedCost += entry.cost();
    }

    Entry<T> head() {
      return tenants.next().first();
    }

    Entry<T> serveHead() {
      Tenant<T> next = tenants.next();
      return taken(tenants.serve(next, next::pollFirst));
    }

    Entry<T> removeLast() {
      Tenant<T> last = tenants.last();
      return taken(tenants.change(last, last::pollLast));
    }

    void removeIf(Predicate<? super T> filter, List<T> removed) {
      for (Tenant<T> tenant : tenants.activeFlows()) {
        for (Entry<T> entry : tenants.change(tenant, () -> tenant.removeIf(filter))) {
          removed.add(taken(entry).item());
        }
      }
    }

    private Entry<T> taken(Entry<T> entry) {
      count--;
      queuedCost -= entry.cost();
      return entry;
    }

    @Override
    int headCost() {
      return head().cost();
    }

    @Override
    long queuedCost() {
      return queuedCost;
    }

    @Override
    boolean isEmpty() {
      return count == 0;
    }
  }

  /**
   * A tenant: its entries, one FIFO list per class (so each list is in arrival order, and in
   * {@link PriorityOrder}'s order), and their total cost. The next entry is the list head
   * {@code order} serves first; the last, the list tail it serves last.
   */
  private static final class Tenant<T> extends VirtualTimeScheduler.Flow {
    private final PriorityOrder order;
    private final List<ArrayDeque<Entry<T>>> byRank = new ArrayList<>();
    private int count;
    private long queuedCost;

    Tenant(String name, PriorityOrder order) {
      super(name, 1.0);
      this.order = order;
    }

    void add(Entry<T> entry) {
      while (byRank.size() <= entry.rank()) {
        byRank.add(new ArrayDeque<>());
      }
      ArrayDeque<Entry<T>> list = byRank.get(entry.rank());
      Entry<T> tail = list.peekLast();
      if (tail != null && entry.arrived() < tail.arrived()) { // keep the list in arrival order
        entry = new Entry<>(entry.item(), entry.cost(), entry.rank(), tail.arrived());
      }
      list.addLast(entry);
      count++;
      queuedCost += entry.cost();
    }

    Entry<T> first() {
      ArrayDeque<Entry<T>> list = firstList();
      return list == null ? null : list.peekFirst();
    }

    Entry<T> pollFirst() {
      return taken(firstList().pollFirst());
    }

    Entry<T> pollLast() {
      return taken(lastList().pollLast());
    }

    /** The list whose head is served first; ties (equal turns) go to the higher class. */
    private ArrayDeque<Entry<T>> firstList() {
      ArrayDeque<Entry<T>> best = null;
      for (ArrayDeque<Entry<T>> list : byRank) {
        Entry<T> head = list.peekFirst();
        if (head != null && (best == null || order.compare(head.rank(), head.arrived(),
            best.peekFirst().rank(), best.peekFirst().arrived()) < 0)) {
          best = list;
        }
      }
      return best;
    }

    /** The list whose tail is served last: the mirror of {@link #firstList}. */
    private ArrayDeque<Entry<T>> lastList() {
      ArrayDeque<Entry<T>> worst = null;
      for (ArrayDeque<Entry<T>> list : byRank) {
        Entry<T> tail = list.peekLast();
        if (tail != null && (worst == null || order.compare(tail.rank(), tail.arrived(),
            worst.peekLast().rank(), worst.peekLast().arrived()) > 0)) {
          worst = list;
        }
      }
      return worst;
    }

    /**
     * Removes the matching entries and returns them, in the order they would have been served
     * (FIFO within a class). The filter sees every entry before any is removed, so a filter that
     * throws removes nothing here.
     */
    List<Entry<T>> removeIf(Predicate<? super T> filter) {
      List<Entry<T>> removed = new ArrayList<>();
      for (ArrayDeque<Entry<T>> list : byRank) {
        for (Entry<T> entry : list) {
          if (filter.test(entry.item())) {
            removed.add(entry);
          }
        }
      }
      if (!removed.isEmpty()) {
        Set<Entry<T>> doomed = Collections.newSetFromMap(new IdentityHashMap<>());
        doomed.addAll(removed);
        for (ArrayDeque<Entry<T>> list : byRank) {
          list.removeIf(doomed::contains);
        }
        removed.forEach(this::taken);
        removed.sort((a, b) -> order.compare(a.rank(), a.arrived(), b.rank(), b.arrived()));
      }
      return removed;
    }

    private Entry<T> taken(Entry<T> entry) {
      count--;
      queuedCost -= entry.cost();
      return entry;
    }

    @Override
    int headCost() {
      return first().cost();
    }

    @Override
    long queuedCost() {
      return queuedCost;
    }

    @Override
    boolean isEmpty() {
      return count == 0;
    }
  }
}
