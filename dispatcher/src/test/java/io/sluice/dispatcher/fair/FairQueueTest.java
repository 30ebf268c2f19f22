package io.sluice.dispatcher.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FairQueueTest {
  private static final Map<String, Double> WEIGHTS = Map.of("gold", 8.0, "silver", 4.0, "free", 1.0);
  private static final double WEIGHT_SUM = 13.0;

  /** What the tests queue: enough to tell where a served item came from. */
  record Job(String tier, String tenant, int cost, int seq, int partition) {
  }

  /** Offers jobs with increasing sequence numbers, and keeps tallies of what was served. */
  private static final class Driver {
    final FairQueue<Job> queue;
    int seq;
    final Map<String, Long> callsByTier = new TreeMap<>();
    final Map<String, Long> costByTier = new TreeMap<>();
    final Map<String, Long> costByTenant = new TreeMap<>();

    Driver(Map<String, Double> weights, int capacity) {
      queue = new FairQueue<>(weights, capacity);
    }

    Optional<Job> offer(String tier, String tenant, int cost) {
      return offer(tier, tenant, cost, 0);
    }

    Optional<Job> offer(String tier, String tenant, int cost, int partition) {
      return queue.offer(tier, tenant, cost, new Job(tier, tenant, cost, seq++, partition));
    }

    void offerMany(String tier, String tenant, int cost, int count) {
      for (int i = 0; i < count; i++) {
        assertEquals(Optional.empty(), offer(tier, tenant, cost), "no eviction while filling");
      }
    }

    Job poll() {
      Job job = queue.poll().orElseThrow();
      callsByTier.merge(job.tier(), 1L, Long::sum);
      costByTier.merge(job.tier(), (long) job.cost(), Long::sum);
      costByTenant.merge(job.tenant(), (long) job.cost(), Long::sum);
      return job;
    }

    /** Polls {@code n} times; each served job is replaced by a copy, so every queue stays backlogged. */
    void pollBacklogged(int n) {
      for (int i = 0; i < n; i++) {
        Job job = poll();
        offer(job.tier(), job.tenant(), job.cost(), job.partition());
      }
    }

    void resetTallies() {
      callsByTier.clear();
      costByTier.clear();
      costByTenant.clear();
    }

    static double share(Map<String, Long> tally, String key) {
      long total = tally.values().stream().mapToLong(Long::longValue).sum();
      return tally.getOrDefault(key, 0L) / (double) total;
    }
  }

  private static void assertWithinRelative(double expected, double actual, double tolerance, String what) {
    assertTrue(Math.abs(actual - expected) <= tolerance * expected,
        what + ": expected " + expected + " within " + (tolerance * 100) + "% but was " + actual);
  }

  // ---------------------------------------------------------------- across tiers

  @Test
  void shouldShareCallsAmongBackloggedTiersByWeight() {
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 1, 100);
    d.offerMany("silver", "s", 1, 100);
    d.offerMany("free", "f", 1, 100);

    d.pollBacklogged(1_300);

    for (String tier : WEIGHTS.keySet()) {
      assertWithinRelative(WEIGHTS.get(tier) / WEIGHT_SUM, Driver.share(d.callsByTier, tier), 0.01, tier);
    }
  }

  @Test
  void shouldShareCostNotCallsByWeightWhenCostsDiffer() {
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 5, 100);
    d.offerMany("silver", "s", 2, 100);
    d.offerMany("free", "f", 1, 100);

    d.pollBacklogged(4_600);

    for (String tier : WEIGHTS.keySet()) {
      assertWithinRelative(WEIGHTS.get(tier) / WEIGHT_SUM, Driver.share(d.costByTier, tier), 0.01, tier);
    }
    // Calls are not what is shared: gold's calls are 8/5 of 1.6 + 2 + 1, about 35%, not 62%.
    assertWithinRelative(1.6 / 4.6, Driver.share(d.callsByTier, "gold"), 0.01, "gold's share of calls");
  }

  @Test
  void shouldSplitAnEmptyTiersShareAmongTheBusyOnesByTheirWeights() {
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 1, 100);
    d.offerMany("free", "f", 1, 100);

    d.pollBacklogged(900);

    assertWithinRelative(8.0 / 9, Driver.share(d.callsByTier, "gold"), 0.01, "gold");
    assertWithinRelative(1.0 / 9, Driver.share(d.callsByTier, "free"), 0.01, "free");
  }

  @Test
  void shouldShareByTheNewWeightsFromTheMomentTheyAreReloaded() {
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 1, 100);
    d.offerMany("silver", "s", 1, 100);
    d.offerMany("free", "f", 1, 100);
    d.pollBacklogged(1_300);

    d.queue.reweigh(Map.of("gold", 1.0, "silver", 2.0, "free", 1.0));
    d.resetTallies();
    d.pollBacklogged(1_200);

    assertEquals(300, d.queue.size(), "a reload drops and adds nothing");
    assertWithinRelative(0.25, Driver.share(d.callsByTier, "gold"), 0.02, "gold at 1 of 4");
    assertWithinRelative(0.50, Driver.share(d.callsByTier, "silver"), 0.02, "silver at 2 of 4");
    assertWithinRelative(0.25, Driver.share(d.callsByTier, "free"), 0.02, "free at 1 of 4");
  }

  @Test
  void shouldCountTheTenantsOfEachTierThatHaveEntriesQueued() {
    FairQueue<String> queue = new FairQueue<>(WEIGHTS, 10);
    queue.offer("gold", "g1", 1, "a");
    queue.offer("gold", "g1", 1, "b");
    queue.offer("gold", "g2", 1, "c");
    queue.offer("free", "f1", 1, "d");
    assertEquals(Map.of("gold", 2, "free", 1), queue.busyTenantsByTier());
    queue.removeIf("d"::equals);
    assertEquals(Map.of("gold", 2), queue.busyTenantsByTier(), "a tier with nothing queued is left out");
  }

  @Test
  void shouldGiveATierThatLostItsWeightTheSmallestNewOne() {
    FairQueue<String> queue = new FairQueue<>(WEIGHTS, 10);

    queue.reweigh(Map.of("silver", 4.0, "free", 2.0));

    assertEquals(2.0, queue.weightOf("gold"));
    assertThrows(IllegalArgumentException.class, () -> queue.reweigh(Map.of("free", 0.0)));
    assertEquals(4.0, queue.weightOf("silver"), "a refused reweigh changes nothing");
  }

  @Test
  void shouldNotGiveATierABurstForTheTimeItWasIdle() {
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 1, 100);
    d.offerMany("silver", "s", 1, 100);
    d.offerMany("free", "f", 1, 2);
    d.pollBacklogged(26); // free is served twice, then leaves (its partition moves elsewhere)
    d.queue.removeIf(job -> job.tier().equals("free"));
    d.pollBacklogged(12_000); // a long time for gold and silver alone

    d.offerMany("free", "f", 1, 1_000);
    d.resetTallies();
    List<String> next26 = new ArrayList<>();
    for (int i = 0; i < 26; i++) {
      Job job = d.poll();
      d.offer(job.tier(), job.tenant(), job.cost());
      next26.add(job.tier());
    }

    // Its fair share from now on, 2 in 26, and not a catch-up for the 12,000 calls it missed.
    assertEquals(2, next26.stream().filter("free"::equals).count(), next26.toString());
    assertFalse(next26.subList(0, 6).contains("free"), "free goes behind the current round: " + next26);
  }

  @Test
  void shouldKeepAChargeWhenATierEmptiesAndRefillsRightAway() {
    // A tier cannot dodge its bill by never having more than one entry waiting.
    Driver d = new Driver(WEIGHTS, 10_000);
    d.offerMany("gold", "g", 1, 100);
    d.offer("free", "f", 1);
    for (int i = 0; i < 900; i++) {
      Job job = d.poll();
      d.offer(job.tier(), job.tenant(), job.cost()); // free has at most one entry at any time
    }
    assertWithinRelative(1.0 / 9, Driver.share(d.callsByTier, "free"), 0.01, "free");
  }

  @Test
  void shouldGiveAnUnconfiguredTierTheSmallestConfiguredWeight() {
    Driver d = new Driver(Map.of("gold", 8.0, "free", 2.0), 10_000);
    assertEquals(2.0, d.queue.weightOf("mystery"));
    d.offerMany("gold", "g", 1, 100);
    d.offerMany("mystery", "m", 1, 100);

    d.pollBacklogged(1_000);

    assertWithinRelative(0.2, Driver.share(d.callsByTier, "mystery"), 0.01, "mystery");
  }

  @Test
  void shouldBreakTiesTheSameWayEveryTime() {
    List<String> first = new ArrayList<>();
    List<String> second = new ArrayList<>();
    for (List<String> order : List.of(first, second)) {
      Driver d = new Driver(Map.of("a", 1.0, "b", 1.0, "c", 1.0), 100);
      d.offerMany("c", "t", 1, 3);
      d.offerMany("b", "t", 1, 3);
      d.offerMany("a", "t", 1, 3);
      for (int i = 0; i < 9; i++) {
        order.add(d.poll().tier());
      }
    }
    assertEquals(List.of("a", "b", "c", "a", "b", "c", "a", "b", "c"), first);
    assertEquals(first, second);
  }

  // ---------------------------------------------------------------- inside a tier

  @Test
  void shouldGiveBackloggedTenantsEqualCostSharesWhateverTheirQueueLengthAndCost() {
    Driver d = new Driver(WEIGHTS, 100_000);
    d.offerMany("silver", "whale", 1, 10_000); // 100 times the others
    d.offerMany("silver", "a", 2, 100);
    d.offerMany("silver", "b", 3, 100);
    d.offerMany("silver", "c", 5, 100);
    d.offerMany("gold", "g", 1, 100);

    d.pollBacklogged(6_000);

    List<Long> silverTenants = List.of(d.costByTenant.get("whale"), d.costByTenant.get("a"),
        d.costByTenant.get("b"), d.costByTenant.get("c"));
    assertTrue(JainIndex.of(silverTenants) >= 0.99, "Jain's index of " + silverTenants);
    assertWithinRelative(4.0 / 12, Driver.share(d.costByTier, "silver"), 0.01, "silver");
  }

  @Test
  void shouldServeAQueuedTenantAndANewcomerInTurn() {
    Driver d = new Driver(WEIGHTS, 100_000);
    d.offerMany("gold", "whale", 1, 10_000);
    d.pollBacklogged(500);

    d.offerMany("gold", "newcomer", 1, 10);
    List<String> next10 = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      next10.add(d.poll().tenant());
    }

    // V is 499, the start tag of the whale's last call; the whale's next finishes at 501. The
    // newcomer starts at V: its first finishes at 500, then both finish at 501, 502... and take
    // turns, ties going to the smaller name. Neither the whale's 500 calls nor its 9,500 waiting
    // entries count against it, and the newcomer banks nothing for arriving late.
    assertEquals(List.of("newcomer", "newcomer", "whale", "newcomer", "whale", "newcomer", "whale",
        "newcomer", "whale", "newcomer"), next10);
  }

  @Test
  void shouldServeEachTenantsEntriesInTheOrderTheyWereOffered() {
    Driver d = new Driver(WEIGHTS, 100_000);
    Random random = new Random(7);
    String[] tiers = {"gold", "silver", "free"};
    for (int i = 0; i < 3_000; i++) {
      d.offer(tiers[random.nextInt(3)], "t" + random.nextInt(10), 1 + random.nextInt(5));
    }
    Map<String, Integer> lastSeq = new HashMap<>();
    while (!d.queue.isEmpty()) {
      Job job = d.poll();
      String tenant = job.tier() + "/" + job.tenant();
      Integer previous = lastSeq.put(tenant, job.seq());
      assertTrue(previous == null || previous < job.seq(), tenant + " served " + job.seq() + " after " + previous);
    }
  }

  // ---------------------------------------------------------------- capacity

  @Test
  void shouldEvictFromTheLongestLowWeightBacklogRatherThanALightTenantOfAHighTier() {
    Driver d = new Driver(WEIGHTS, 10);
    d.offerMany("gold", "a", 1, 1);
    d.offerMany("free", "b", 1, 9);

    Job evicted = d.offer("gold", "c", 1).orElseThrow();

    // Gold's backlog finishes at 2/8, free's at 9: free's newest entry is the last in line.
    assertEquals("free", evicted.tier());
    assertEquals("b", evicted.tenant());
    assertEquals(9, evicted.seq(), "b's newest");
    assertEquals(10, d.queue.size());
  }

  @Test
  void shouldEvictTheOfferedEntryWhenItWouldBeServedLast() {
    Driver d = new Driver(WEIGHTS, 10);
    d.offerMany("gold", "a", 1, 9);
    d.offerMany("free", "b", 1, 1);

    Optional<Job> evicted = d.offer("free", "b", 1);

    assertEquals(Optional.of(10), evicted.map(Job::seq), "the entry just offered");
    assertEquals(10, d.queue.size());
  }

  @Test
  void shouldEvictTheNewestEntryOfTheTenantWhoseQueueFinishesLast() {
    Driver d = new Driver(WEIGHTS, 8);
    d.offerMany("silver", "light", 1, 5); // its queue finishes at 5
    d.offerMany("silver", "heavy", 4, 3); // at 12, with fewer entries

    Job evicted = d.offer("silver", "light", 1).orElseThrow();

    assertEquals("heavy", evicted.tenant());
    assertEquals(7, evicted.seq());
  }

  @Test
  void shouldEvictExactlyTheEntryThatWouldOtherwiseBeServedLast() {
    Random random = new Random(11);
    String[] tiers = {"gold", "silver", "free"};
    for (int trial = 0; trial < 200; trial++) {
      int capacity = 2 + random.nextInt(60);
      int warmup = random.nextInt(200);
      List<Object[]> offers = new ArrayList<>();
      for (int i = 0; i < capacity + 1; i++) {
        offers.add(new Object[] {tiers[random.nextInt(3)], "t" + random.nextInt(6), 1 + random.nextInt(4)});
      }
      // The same history twice: once with room for every entry, once one short of it.
      Driver roomy = new Driver(WEIGHTS, capacity + 1);
      Driver full = new Driver(WEIGHTS, capacity);
      for (Driver d : List.of(roomy, full)) {
        d.offerMany("gold", "warm", 1, 1);
        d.offerMany("free", "warm", 2, 1);
        d.pollBacklogged(warmup); // so that virtual time and some tags are not zero
        d.queue.removeIf(job -> job.tenant().equals("warm"));
      }
      Optional<Job> evicted = Optional.empty();
      for (Object[] o : offers) {
        roomy.offer((String) o[0], (String) o[1], (Integer) o[2]);
        evicted = full.offer((String) o[0], (String) o[1], (Integer) o[2]);
      }
      Job lastServed = null;
      while (!roomy.queue.isEmpty()) {
        lastServed = roomy.poll();
      }
      assertEquals(Optional.ofNullable(lastServed), evicted, "trial " + trial);
    }
  }

  // ---------------------------------------------------------------- removal

  @Test
  void shouldRemoveAndReturnTheMatchingEntries() {
    Driver d = new Driver(WEIGHTS, 1_000);
    for (int i = 0; i < 60; i++) {
      d.offer(i % 2 == 0 ? "gold" : "free", "t" + (i % 5), 1, i % 3);
    }

    List<Job> removed = d.queue.removeIf(job -> job.partition() == 1);

    assertEquals(20, removed.size());
    assertTrue(removed.stream().allMatch(job -> job.partition() == 1));
    assertEquals(40, d.queue.size());
    while (!d.queue.isEmpty()) {
      assertTrue(d.poll().partition() != 1, "a removed entry was served");
    }
  }

  @Test
  void shouldNotChargeATenantForEntriesRemovedBeforeTheyWereServed() {
    Driver d = new Driver(WEIGHTS, 1_000);
    for (int i = 0; i < 100; i++) {
      d.offer("silver", "a", 1, 0);
      d.offer("silver", "b", 1, i % 2); // half of b's entries come from partition 1
    }
    d.pollBacklogged(20);

    d.queue.removeIf(job -> job.partition() == 1);
    List<String> next20 = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      next20.add(d.poll().tenant());
    }

    // Had b been charged for the 50 removed entries it would now wait while a is served 50 times.
    assertEquals(10, next20.stream().filter("b"::equals).count(), next20.toString());
  }

  @Test
  void shouldKeepTierSharesByWeightAfterAPartitionIsRevoked() {
    Driver d = new Driver(WEIGHTS, 10_000);
    for (String tier : WEIGHTS.keySet()) {
      for (int i = 0; i < 100; i++) {
        d.offer(tier, "x", 1, 0);
        d.offer(tier, "y", 1, 1);
      }
    }
    d.pollBacklogged(500);

    List<Job> removed = d.queue.removeIf(job -> job.partition() == 1 && !job.tier().equals("free"));
    assertFalse(removed.isEmpty());
    d.resetTallies();
    d.pollBacklogged(1_300);

    for (String tier : WEIGHTS.keySet()) {
      assertWithinRelative(WEIGHTS.get(tier) / WEIGHT_SUM, Driver.share(d.callsByTier, tier), 0.01, tier);
    }
  }

  @Test
  void shouldStayConsistentWhenTheFilterThrows() {
    Driver d = new Driver(WEIGHTS, 1_000);
    for (int i = 0; i < 90; i++) {
      d.offer(WEIGHTS.keySet().stream().sorted().toList().get(i % 3), "t" + (i % 4), 1, i % 2);
    }

    assertThrows(IllegalStateException.class, () -> d.queue.removeIf(job -> {
      if (job.seq() == 45) {
        throw new IllegalStateException("bad filter");
      }
      return job.partition() == 1;
    }));

    int left = d.queue.size();
    int polled = 0;
    while (d.queue.poll().isPresent()) {
      polled++;
    }
    assertEquals(left, polled, "size() counts exactly what is left");
    assertTrue(left >= 45 && left <= 90, "at most partition 1 is gone: " + left);
  }

  // ---------------------------------------------------------------- bookkeeping

  @Test
  void shouldNeverExceedCapacityNorLoseNorDuplicateAnItem() {
    Random random = new Random(20_240_613);
    String[] tiers = {"gold", "silver", "free", "unconfigured"};
    Driver d = new Driver(WEIGHTS, 200);
    Set<Integer> inside = new HashSet<>();
    Set<Integer> gone = new HashSet<>();
    for (int op = 0; op < 100_000; op++) {
      int dice = random.nextInt(1000);
      if (dice < 600) {
        int seq = d.seq;
        boolean full = d.queue.size() == 200;
        Optional<Job> evicted = d.offer(tiers[random.nextInt(4)], "t" + random.nextInt(40),
            1 + random.nextInt(10), random.nextInt(8));
        assertTrue(inside.add(seq));
        assertEquals(full, evicted.isPresent(), "evicts when, and only when, it was full");
        evicted.ifPresent(job -> leave(job, inside, gone));
      } else if (dice < 995) {
        Optional<Job> peeked = d.queue.peek();
        Optional<Job> polled = d.queue.poll();
        assertEquals(peeked, polled, "peek shows what poll returns");
        polled.ifPresent(job -> leave(job, inside, gone));
        assertEquals(inside.isEmpty(), polled.isEmpty());
      } else {
        int partition = random.nextInt(8);
        d.queue.removeIf(job -> job.partition() == partition).forEach(job -> leave(job, inside, gone));
      }
      assertTrue(d.queue.size() <= 200, "size " + d.queue.size());
      assertEquals(inside.size(), d.queue.size());
    }
    while (!d.queue.isEmpty()) {
      leave(d.queue.poll().orElseThrow(), inside, gone);
    }
    assertEquals(Set.of(), inside);
    assertEquals(d.seq, gone.size(), "every offered item left exactly once");
  }

  private static void leave(Job job, Set<Integer> inside, Set<Integer> gone) {
    assertTrue(inside.remove(job.seq()), "not inside: " + job);
    assertTrue(gone.add(job.seq()), "left twice: " + job);
  }

  @Test
  void shouldForgetTenantsOnceVirtualTimeHasPassedWhatTheyWereCharged() {
    Driver d = new Driver(WEIGHTS, 100_000);
    for (int i = 0; i < 10_000; i++) {
      d.offer("free", "one-off-" + i, 1);
    }
    while (!d.queue.isEmpty()) {
      d.poll();
    }
    d.offerMany("free", "late", 1, 2);
    d.poll();
    d.poll();

    // Left: the free tier and "late", each charged up to 2 while V is 1.
    assertEquals(2, d.queue.rememberedFlows());
  }

  @Test
  void shouldAnswerEmptyWhenThereIsNothingToServe() {
    FairQueue<String> queue = new FairQueue<>(WEIGHTS, 1);
    assertEquals(Optional.empty(), queue.poll());
    assertEquals(Optional.empty(), queue.peek());
    assertTrue(queue.isEmpty());
    assertEquals(Optional.empty(), queue.offer("gold", "a", 1, "x"));
    assertEquals(Optional.of("x"), queue.poll());
    assertTrue(queue.isEmpty());
  }

  @Test
  void shouldRefuseBadArguments() {
    assertThrows(IllegalArgumentException.class, () -> new FairQueue<String>(Map.of(), 10));
    assertThrows(IllegalArgumentException.class, () -> new FairQueue<String>(Map.of("a", 0.0), 10));
    assertThrows(IllegalArgumentException.class, () -> new FairQueue<String>(Map.of("a", Double.NaN), 10));
    assertThrows(IllegalArgumentException.class, () -> new FairQueue<String>(WEIGHTS, 0));
    FairQueue<String> queue = new FairQueue<>(WEIGHTS, 10);
    assertThrows(IllegalArgumentException.class, () -> queue.offer("gold", "a", 0, "x"));
    assertThrows(NullPointerException.class, () -> queue.offer("gold", "a", 1, null));
    assertTrue(queue.isEmpty());
  }

  @Test
  void shouldVisitEveryQueuedItemWithoutServingIt() {
    FairQueue<String> q = new FairQueue<>(Map.of("gold", 8.0, "free", 1.0), 10);
    q.offer("gold", "a", 2, "a1");
    q.offer("free", "b", 1, "b1");
    q.offer("gold", "a", 1, "a2");
    List<String> seen = new ArrayList<>();
    q.forEachQueued((tier, tenant, cost, item) -> seen.add(tier + "/" + tenant + "/" + cost + "/"
        + item));
    java.util.Collections.sort(seen);
    assertEquals(List.of("free/b/1/b1", "gold/a/1/a2",
        "gold/a/2/a1"), seen);
    assertEquals(3, q.size());
    assertEquals("a1", q.poll().orElseThrow());
  }
}
