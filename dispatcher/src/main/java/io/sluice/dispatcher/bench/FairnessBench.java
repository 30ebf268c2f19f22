package io.sluice.dispatcher.bench;

import io.sluice.dispatcher.fair.FairQueue;
import io.sluice.dispatcher.fair.JainIndex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The fair queue of one saturated provider, in memory: tiers {@code gold: 8, silver: 4, free: 1},
 * 30 tenants with backlogs from 1 to 2,000 entries and costs from 1 to 5. Every served entry is
 * replaced at once by another of the same tenant, so every tenant stays backlogged (the queue
 * stays full) for the whole run. Prints each tier's share of cost and of calls next to its weight
 * share, Jain's index of its tenants' cost shares, and poll+offer pairs per second (after a
 * warm-up run on a separate queue).
 *
 * <p>Usage: {@code java -cp dispatcher/target/classes io.sluice.dispatcher.bench.FairnessBench
 * [polls]} (default 1,000,000).
 */
public final class FairnessBench {
  private static final Map<String, Double> WEIGHTS = new LinkedHashMap<>();

  static {
    WEIGHTS.put("gold", 8.0);
    WEIGHTS.put("silver", 4.0);
    WEIGHTS.put("free", 1.0);
  }

  private static final int[] BACKLOGS = {1, 3, 10, 40, 200, 2_000};

  /** One tenant of the simulation; its calls are its own queued items. */
  private record Tenant(int index, String tier, String name, int cost, int backlog) {
  }

  private record Tally(long[] calls, long[] cost) {
    Tally(int tenants) {
      this(new long[tenants], new long[tenants]);
    }
  }

  public static void main(String[] args) {
    int polls = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    List<Tenant> tenants = tenants();
    int capacity = tenants.stream().mapToInt(Tenant::backlog).sum();
    System.out.printf("fairness bench: %,d polls, tiers %s, %d tenants, capacity %,d (always full)%n",
        polls, WEIGHTS, tenants.size(), capacity);

    run(tenants, capacity, Math.max(polls / 5, 1)); // warm-up
    long begin = System.nanoTime();
    Tally tally = run(tenants, capacity, polls);
    double seconds = (System.nanoTime() - begin) / 1e9;

    report(tenants, tally, polls);
    System.out.printf("%n%,d poll+offer pairs in %.3f s: %,.0f pairs/s (%,.0f operations/s)%n",
        polls, seconds, polls / seconds, 2 * polls / seconds);
  }

  /** 6 gold, 10 silver and 14 free tenants; backlogs and costs vary so that neither buys share. */
  private static List<Tenant> tenants() {
    Random random = new Random(42);
    Map<String, Integer> counts = Map.of("gold", 6, "silver", 10, "free", 14);
    List<Tenant> tenants = new ArrayList<>();
    for (String tier : WEIGHTS.keySet()) {
      for (int i = 0; i < counts.get(tier); i++) {
        tenants.add(new Tenant(tenants.size(), tier, tier + "-" + i, 1 + random.nextInt(5),
            BACKLOGS[i % BACKLOGS.length]));
      }
    }
    return tenants;
  }

  private static Tally run(List<Tenant> tenants, int capacity, int polls) {
    FairQueue<Tenant> queue = new FairQueue<>(WEIGHTS, capacity);
    for (int round = 0; round < BACKLOGS[BACKLOGS.length - 1]; round++) {
      for (Tenant t : tenants) {
        if (round < t.backlog()) {
          queue.offer(t.tier(), t.name(), t.cost(), t);
        }
      }
    }
    Tally tally = new Tally(tenants.size());
    for (int i = 0; i < polls; i++) {
      Tenant t = queue.poll().orElseThrow();
      tally.calls()[t.index()]++;
      tally.cost()[t.index()] += t.cost();
      if (queue.offer(t.tier(), t.name(), t.cost(), t).isPresent()) {
        throw new IllegalStateException("the queue was never over capacity; nothing to evict");
      }
    }
    return tally;
  }

  private static void report(List<Tenant> tenants, Tally tally, int polls) {
    long totalCost = 0;
    for (long c : tally.cost()) {
      totalCost += c;
    }
    double weightSum = WEIGHTS.values().stream().mapToDouble(Double::doubleValue).sum();
    System.out.printf("%n%-7s %6s %8s %12s %10s %10s %8s %12s%n", "tier", "weight", "tenants",
        "weight share", "cost share", "deviation", "calls", "Jain (cost)");
    for (String tier : WEIGHTS.keySet()) {
      long tierCost = 0;
      long tierCalls = 0;
      List<Long> tenantCosts = new ArrayList<>();
      for (Tenant t : tenants) {
        if (t.tier().equals(tier)) {
          tierCost += tally.cost()[t.index()];
          tierCalls += tally.calls()[t.index()];
          tenantCosts.add(tally.cost()[t.index()]);
        }
      }
      double weightShare = WEIGHTS.get(tier) / weightSum;
      double costShare = tierCost / (double) totalCost;
      System.out.printf("%-7s %6.0f %8d %11.3f%% %9.3f%% %9.3f%% %7.2f%% %12.5f%n", tier,
          WEIGHTS.get(tier), tenantCosts.size(), 100 * weightShare, 100 * costShare,
          100 * (costShare - weightShare) / weightShare, 100.0 * tierCalls / polls,
          JainIndex.of(tenantCosts));
    }
    System.out.printf("%n%-10s %-7s %5s %8s %10s%n", "tenant", "tier", "cost", "backlog", "cost units");
    for (Tenant t : tenants) {
      System.out.printf("%-10s %-7s %5d %8d %,10d%n", t.name(), t.tier(), t.cost(), t.backlog(),
          tally.cost()[t.index()]);
    }
  }

  private FairnessBench() {
  }
}
