package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.api.sync.RedisHashCommands;
import io.lettuce.core.cluster.SlotHash;
import io.sluice.testkit.ClusterOnRedis;
import io.sluice.testkit.RealServers;
import io.sluice.redis.LuaScript;
import io.sluice.testkit.SpecTable;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.SlotMarkers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import io.sluice.config.RedisConfig;
import io.sluice.redis.RedisConnection;

/** {@code quota_rules.lua} on a real redis-server: the table, all or none, and every rule's bound. */
@ExtendWith(RealServers.class)
class QuotaRulesScriptIT {
  private static StoreOnRedis on;

  @BeforeAll
  static void connect(RedisServerProcess server) {
    on = StoreOnRedis.open(server);
  }

  @AfterAll
  static void disconnect() throws Exception {
    on.close();
    CLUSTER.close();
  }

  /** One 3-node cluster for the class, started by the first test that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

  /** The store on the cluster, one for the class (so its count of script reloads is the class's). */
  private static LettuceTokenBucketStore clusterStore() throws Exception {
    return CLUSTER.once(LettuceTokenBucketStore.class, StoreOnRedis::onCluster);
  }

  private static List<RuleBucket> twoRules(String tenant) {
    return List.of(
        new RuleBucket("provider", RuleKeys.provider(tenant, "spec-api"), QuotaRulesSpecification.SPECS.get(0)),
        new RuleBucket("overall", RuleKeys.overall(tenant), QuotaRulesSpecification.SPECS.get(1)));
  }

  /**
   * {@link QuotaRulesSpecification} on the script: alone, and in a batch of events (each step's
   * event decided in one script call between events of two other tenants, as the gate sends its
   * multi-rule events); the script's answers held exactly to {@link QuotaRulesMath} fed its clock.
   */
  @TestFactory
  Stream<DynamicContainer> quotaRulesSpecification() {
    String run = Long.toString(System.nanoTime());
    List<SpecTable.Implementation<QuotaRulesSpecification.Step>> implementations = new ArrayList<>(List.of(
        new SpecTable.Implementation<>("Lua on redis-server",
            () -> new ScriptRun(QuotaRulesScriptIT::onServer, twoRules("tenant-" + run), on.redis())),
        new SpecTable.Implementation<>("Lua on redis-server, in a batch of events",
            () -> new ScriptRun(script -> inBatches(onServer(script), run), twoRules("batched-" + run), on.redis()))));
    // Tenants in different slots, each its own run.
    for (String tenant : new String[] {"acme-table", "globex-table", "initech-table"}) {
      implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, tenant " + tenant,
          () -> new ScriptRun(QuotaRulesScriptIT::onCluster, twoRules(tenant), CLUSTER.redis())));
    }
    return QuotaRulesSpecTest.TABLE.over(implementations);
  }

  /**
   * {@link QuotaRulesLeaseSpecification} on the script, alone and in a batch between two other
   * tenants' events (on a cluster, in other slots: a call per slot), held exactly to
   * {@link QuotaRulesMath} fed its clock.
   */
  @TestFactory
  Stream<DynamicContainer> leasesAcrossRules() {
    String run = Long.toString(System.nanoTime());
    return QuotaRulesLeaseSpecTest.TABLE.over(List.of(
        new SpecTable.Implementation<>("Lua on redis-server",
            () -> new LeaseRun(QuotaRulesScriptIT::onServer, QuotaRulesLeaseSpecTest.rules("lease-" + run), on.redis(), false)),
        new SpecTable.Implementation<>("Lua on redis-server, in a batch of events",
            () -> new LeaseRun(QuotaRulesScriptIT::onServer, QuotaRulesLeaseSpecTest.rules("lease-batched-" + run), on.redis(), true)),
        new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, in a batch of events of other slots",
            () -> new LeaseRun(QuotaRulesScriptIT::onCluster, QuotaRulesLeaseSpecTest.rules("lease-cluster-" + run),
                CLUSTER.redis(), true))));
  }

  /** The multi-rule script as shipped, whose clock a run freezes ({@link FrozenTimeScript}). */
  private static final LuaScript SHIPPED = QuotaRulesScript.load();

  /** A store on the redis-server whose multi-rule script is {@code rulesScript}. */
  private static TokenBucketStore onServer(LuaScript rulesScript) {
    return new LettuceTokenBucketStore(on.connection().async(), TokenBucketScript.load(), rulesScript);
  }

  /** A store on the cluster (its slots marked intact) whose multi-rule script is {@code rulesScript}. */
  private static TokenBucketStore onCluster(LuaScript rulesScript) {
    try {
      clusterStore();
      return new LettuceTokenBucketStore(CLUSTER.once(RedisConnection.class,
          c -> c.closing(RedisConnection.open(new RedisConfig(c.uri())))).commands(),
          TokenBucketScript.load(), rulesScript);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The table's clock for one run: from now, moved only by the rows; each row's store runs the
   * script at exactly that time, however slowly a loaded machine gets from one row to the next
   * (issue 34, 11: the rows used to shift stored times on Redis's own clock, and assumed a few
   * tens of milliseconds at most between them).
   */
  private static final class TableClock {
    private final Function<LuaScript, TokenBucketStore> storeOn;
    private long micros = System.currentTimeMillis() * 1000;
    private long storeAt = -1;
    private TokenBucketStore store;

    TableClock(Function<LuaScript, TokenBucketStore> storeOn) {
      this.storeOn = storeOn;
    }

    /** Moves the clock by {@code millis} and returns the store running at the new time. */
    TokenBucketStore advance(long millis) {
      micros += millis * 1000;
      if (micros != storeAt) {
        store = storeOn.apply(FrozenTimeScript.at(SHIPPED, micros));
        storeAt = micros;
      }
      return store;
    }

    long micros() {
      return micros;
    }
  }

  /** A store whose every event goes through {@link TokenBucketStore#acquireAllBatch}, between two others. */
  static TokenBucketStore inBatches(TokenBucketStore s, String run) {
    return new TokenBucketStore() {
      @Override
      public java.util.concurrent.CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
        throw new UnsupportedOperationException();
      }

      @Override
      public java.util.concurrent.CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
        return s.acquireAllBatch(List.of(
                new RulesCall(twoRules("before-" + run), 1),
                new RulesCall(buckets, need),
                new RulesCall(twoRules("after-" + run), 2)))
            .thenApply(answers -> {
              assertEquals(3, answers.size());
              assertEquals(2, answers.get(2).levels().size());
              return answers.get(1);
            });
      }
    };
  }

  /**
   * Events of one call that share buckets (a tier budget every event charges, tenants seen more
   * than once): each is decided as if alone, in order, at the call's one Redis time (the math,
   * event by event), and each bucket is left as its last charge left it, written once per call
   * rather than once per event.
   */
  @Test
  void shouldDecideEventsSharingBucketsInOneCallAsIfOneByOne() throws Exception {
    String run = "shared-" + System.nanoTime();
    BucketSpec own = new BucketSpec(3, 1, 0);
    RuleBucket tier = new RuleBucket("tier", RuleKeys.tierBudget(run, "a-api"), new BucketSpec(10, 5, 0));
    List<TokenBucketStore.RulesCall> calls = new ArrayList<>();
    for (int e = 0; e < 8; e++) {
      RuleBucket tenant = new RuleBucket("provider", RuleKeys.provider(run + "-t" + e % 3, "a-api"), own);
      calls.add(new TokenBucketStore.RulesCall(List.of(tenant, tier), 1 + e % 2));
    }
    long writesBefore = on.commandCalls("hset");
    List<RulesAcquisition> got = on.store().acquireAllBatch(calls).toCompletableFuture().get(5, TimeUnit.SECONDS);
    long writes = on.commandCalls("hset") - writesBefore;

    Map<String, QuotaRulesMath.Level> mirror = new java.util.HashMap<>();
    int granted = 0;
    for (int e = 0; e < calls.size(); e++) {
      List<RuleBucket> rules = calls.get(e).buckets();
      QuotaRulesMath.Step math = QuotaRulesMath.acquire(
          rules.stream().map(r -> mirror.get(r.redisKey())).toList(),
          rules.stream().map(RuleBucket::spec).toList(), calls.get(e).need(), got.get(e).nowMicros(), 0);
      for (int i = 0; i < rules.size(); i++) {
        if (math.next().get(i) != null) {
          mirror.put(rules.get(i).redisKey(), math.next().get(i));
        }
      }
      RulesAcquisition m = math.acquisition();
      assertEquals(got.get(0).nowMicros(), got.get(e).nowMicros(), "one Redis time per call");
      assertEquals(m.granted(), got.get(e).granted(), "event " + e);
      assertEquals(m.levels(), got.get(e).levels(), "event " + e);
      assertEquals(m.waitMicros(), got.get(e).waitMicros(), "event " + e);
      granted += m.granted() > 0 ? 1 : 0;
    }
    assertTrue(granted > 0 && granted < calls.size(), "some events paid, some refused: " + granted);
    for (Map.Entry<String, QuotaRulesMath.Level> b : mirror.entrySet()) {
      Map<String, String> stored = on.redis().hgetall(b.getKey());
      assertEquals(b.getValue().tokens(), Double.parseDouble(stored.get("tokens")), b.getKey());
      assertEquals(b.getValue().updatedMicros(), Long.parseLong(stored.get("ts")), b.getKey());
    }
    assertEquals(mirror.size(), writes, "each charged bucket written once: three tenants and the tier");
  }

  /** Every rule of a tenant hashes to the tenant's slot, so one script can charge them together in a cluster. */
  @Test
  void shouldChargeATenantsRulesTogetherInARedisCluster() throws Exception {
    LettuceTokenBucketStore clusterStore = clusterStore();
    for (String tenant : new String[] {"acme", "globex", "initech", "umbrella", "hooli"}) {
      List<RuleBucket> rules = List.of(
          new RuleBucket("provider", RuleKeys.provider(tenant, "a-api"), new BucketSpec(2, 1, 0)),
          new RuleBucket("provider", RuleKeys.provider(tenant, "b-api"), new BucketSpec(5, 1, 0)),
          new RuleBucket("overall", RuleKeys.overall(tenant), new BucketSpec(3, 1, 0)),
          new RuleBucket("rule:refunds", RuleKeys.rule(tenant, "refunds"), new BucketSpec(4, 1, 0)));
      int slot = SlotHash.getSlot(rules.get(0).redisKey());
      for (RuleBucket r : rules) {
        assertEquals(slot, SlotHash.getSlot(r.redisKey()), r.redisKey());
      }
      // a-api (2) and overall (3): two events pass, the third is refused by a-api with nothing charged.
      assertEquals(1, acquire(clusterStore, List.of(rules.get(0), rules.get(2), rules.get(3)), 1).granted());
      assertEquals(1, acquire(clusterStore, List.of(rules.get(0), rules.get(2)), 1).granted());
      RulesAcquisition refused = acquire(clusterStore, List.of(rules.get(0), rules.get(2)), 1);
      assertEquals(0, refused.granted());
      // b-api and overall: overall still holds its third unit, so the refusal took nothing from it.
      RulesAcquisition b = acquire(clusterStore, List.of(rules.get(1), rules.get(2)), 1);
      assertEquals(1, b.granted(), "overall kept the unit the refused event did not take");
      assertEquals(1, b.levels().get(1), 0.05);
    }
    assertTrue(clusterStore().reloads() >= 1, "each node learned the script through the NOSCRIPT fallback");
    // A tier-wide budget lands elsewhere: why ConfigChecks refuses it with a cluster.
    assertNotEquals(SlotHash.getSlot(RuleKeys.overall("acme")), SlotHash.getSlot(RuleKeys.tierBudget("pro", "a-api")));
  }

  @Test
  void shouldChargeNothingInAnyRuleWhenOneRefuses() throws Exception {
    String tenant = "atomic-" + System.nanoTime();
    List<RuleBucket> rules = List.of(
        new RuleBucket("provider", RuleKeys.provider(tenant, "spec-api"), new BucketSpec(10, 0.01, 0)),
        new RuleBucket("overall", RuleKeys.overall(tenant), new BucketSpec(10, 0.01, 0)),
        new RuleBucket("rule:x", RuleKeys.rule(tenant, "x"), new BucketSpec(2, 0.01, 0)),
        new RuleBucket("tier", RuleKeys.tierBudget("pro-" + tenant, "spec-api"), new BucketSpec(10, 0.01, 0)));
    assertEquals(2, acquire(on.store(), rules, 2).granted());
    Map<String, Map<String, String>> before = new java.util.HashMap<>();
    for (RuleBucket r : rules) {
      before.put(r.redisKey(), on.redis().hgetall(r.redisKey()));
    }
    RulesAcquisition refused = acquire(on.store(), rules, 1);
    assertEquals(0, refused.granted());
    assertTrue(refused.waitMicros() > 90_000_000, "rule x refills one unit in 100 s: " + refused.waitMicros());
    for (RuleBucket r : rules) {
      assertEquals(before.get(r.redisKey()), on.redis().hgetall(r.redisKey()), "untouched: " + r.rule());
    }
  }

  /**
   * A slot whose data Redis lost (its marker gone): a bucket it no longer has may have been empty
   * at the loss, so it starts empty and refills from the time the script found the loss.
   */
  @Test
  void shouldStartABucketOfALostSlotEmpty() throws Exception {
    String tenant = "lost-" + System.nanoTime();
    List<RuleBucket> rules = List.of(
        new RuleBucket("provider", RuleKeys.provider(tenant, "spec-api"), new BucketSpec(5, 0.01, 0)),
        new RuleBucket("overall", RuleKeys.overall(tenant), new BucketSpec(5, 0.01, 0)));
    String marker = SlotMarkers.markerOf(rules.get(0).redisKey());
    assertEquals(1, acquire(on.store(), rules, 1).granted());
    on.redis().del(rules.get(0).redisKey(), rules.get(1).redisKey(), marker);
    RulesAcquisition after = acquire(on.store(), rules, 1);
    assertEquals(0, after.granted(), "not full: the lost bucket may have been empty");
    assertEquals(0, after.levels().get(0), 1e-3);
    assertTrue(on.redis().get(marker) != null && !on.redis().get(marker).equals("0"), "the loss is recorded");
    on.redis().set(marker, "0");
  }

  /**
   * A slot lost while its buckets may have been leased out (a caller that leases passes its hold on
   * every call): the buckets Redis no longer has start empty as of the end of the hold.
   */
  @Test
  void shouldStartABucketOfALostSlotEmptyUntilItsLeasesCouldHaveEnded() throws Exception {
    String tenant = "lost-leased-" + System.nanoTime();
    List<RuleBucket> rules = List.of(
        new RuleBucket("provider", RuleKeys.provider(tenant, "spec-api"), new BucketSpec(5, 1000, 0)),
        new RuleBucket("overall", RuleKeys.overall(tenant), new BucketSpec(5, 1000, 0)));
    String marker = SlotMarkers.markerOf(rules.get(0).redisKey());
    TokenBucketStore.RulesCall leasing = new TokenBucketStore.RulesCall(rules, 1, 1, 60_000_000, null);
    assertEquals(1, on.store().acquireAllBatch(List.of(leasing)).toCompletableFuture().get(5, TimeUnit.SECONDS)
        .get(0).granted());
    on.redis().del(rules.get(0).redisKey(), rules.get(1).redisKey(), marker);
    RulesAcquisition after = on.store().acquireAllBatch(List.of(leasing)).toCompletableFuture()
        .get(5, TimeUnit.SECONDS).get(0);
    assertEquals(0, after.granted(), "its leases may still be spent for up to the hold");
    assertTrue(after.waitMicros() > 59_000_000, "waits out the hold: " + after.waitMicros());
    on.redis().set(marker, "0");
  }

  /**
   * Invariant 1 per rule on the script: two providers' events of one tenant (each with its own
   * provider rule, all with the tenant's overall, some with a per-attribute rule, some with a
   * tier budget shared with another tenant) for about 1.5 s of real time. In every window between
   * two admissions (on Redis's clock) each rule admitted at most capacity + refill * window.
   */
  @Test
  void shouldKeepEveryRuleWithinItsOwnBoundInEveryWindowOnRealRedis() throws Exception {
    String run = "bound-" + System.nanoTime();
    RuleBucket a = new RuleBucket("provider", RuleKeys.provider(run + "-t1", "a-api"), new BucketSpec(4, 20, 0));
    RuleBucket b = new RuleBucket("provider", RuleKeys.provider(run + "-t1", "b-api"), new BucketSpec(6, 30, 0));
    RuleBucket overall = new RuleBucket("overall", RuleKeys.overall(run + "-t1"), new BucketSpec(5, 25, 0));
    RuleBucket attr = new RuleBucket("rule:refunds", RuleKeys.rule(run + "-t1", "refunds"), new BucketSpec(3, 20, 0));
    RuleBucket otherA = new RuleBucket("provider", RuleKeys.provider(run + "-t2", "a-api"), new BucketSpec(10, 50, 0));
    RuleBucket tier = new RuleBucket("tier", RuleKeys.tierBudget(run, "a-api"), new BucketSpec(6, 30, 0));
    List<RuleBucket> all = List.of(a, b, overall, attr, otherA, tier);
    Map<RuleBucket, List<long[]>> admitted = new java.util.HashMap<>();
    all.forEach(r -> admitted.put(r, new ArrayList<>()));
    Random random = new Random(7);
    // Three sources of events, each paced as the gate paces them: after a refusal, its next try
    // is when the script said every rule could pay.
    long[] notBefore = new long[3];
    // At least 1.5 s, and on until every rule has been admitted a few times (a loaded machine
    // makes fewer tries per second), within 30 s.
    long end = System.nanoTime() + 1_500_000_000L;
    long hardEnd = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < hardEnd && (System.nanoTime() < end
        || all.stream().anyMatch(r -> admitted.get(r).size() < 5))) {
      int source = random.nextInt(3);
      if (System.nanoTime() < notBefore[source]) {
        continue;
      }
      List<RuleBucket> rules = new ArrayList<>();
      switch (source) {
        case 0 -> {
          rules.add(a);
          rules.add(overall);
          if (random.nextBoolean()) {
            rules.add(attr);
          }
          rules.add(tier);
        }
        case 1 -> {
          rules.add(b);
          rules.add(overall);
          if (random.nextBoolean()) {
            rules.add(attr);
          }
        }
        default -> {
          rules.add(otherA);
          rules.add(tier);
        }
      }
      int cost = 1 + random.nextInt(2);
      RulesAcquisition got = acquire(on.store(), rules, cost);
      if (got.isGranted()) {
        rules.forEach(r -> admitted.get(r).add(new long[] {got.nowMicros(), cost}));
      } else {
        notBefore[source] = System.nanoTime() + got.waitMicros() * 1000;
      }
    }
    for (RuleBucket r : all) {
      // At least a few each: an event that needs three buckets others drain gets few turns (no
      // waiting line for multi-rule events: docs/gate.md, "How the rules are charged"), but every
      // rule is exercised.
      QuotaRulesMathTest.assertWithinBound(admitted.get(r), r.spec(), 5);
    }
  }

  private static RulesAcquisition acquire(TokenBucketStore store, List<RuleBucket> rules, int need) throws Exception {
    return store.acquireAll(rules, need).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /**
   * The table on the script, on the table's clock, and the math at the same times: the two agree,
   * and the script's decisions are the table's.
   */
  private static final class ScriptRun implements SpecTable.Run<QuotaRulesSpecification.Step> {
    private final TableClock clock;
    private final List<RuleBucket> rules;
    private List<QuotaRulesMath.Level> mirror = Arrays.asList(null, null);

    ScriptRun(Function<LuaScript, TokenBucketStore> storeOn, List<RuleBucket> rules,
        RedisHashCommands<String, String> hash) {
      this.clock = new TableClock(storeOn);
      this.rules = rules;
    }

    @Override
    public void step(int index, QuotaRulesSpecification.Step step) throws Exception {
      TokenBucketStore s = clock.advance(step.advanceMillis());
      RulesAcquisition got = acquire(s, rules, step.need());
      QuotaRulesMath.Step math = QuotaRulesMath.acquire(mirror, QuotaRulesSpecification.SPECS, step.need(),
          clock.micros(), 0);
      mirror = math.next();
      RulesAcquisition m = math.acquisition();
      assertEquals(m.granted(), got.granted(), "script = math");
      for (int i = 0; i < rules.size(); i++) {
        assertEquals(m.levels().get(i), got.levels().get(i), 1e-6, "script = math");
      }
      assertEquals(m.waitMicros(), got.waitMicros(), 1, "script = math");
      assertEquals(step.expectGranted(), got.granted(), "granted");
    }
  }

  /** The lease table on the script, on the table's clock, and the math at the same times. */
  private static final class LeaseRun implements SpecTable.Run<QuotaRulesLeaseSpecification.Step> {
    private final TableClock clock;
    private final List<RuleBucket> rules;
    private final boolean batched;
    private List<QuotaRulesMath.Level> mirror = Arrays.asList(null, null);
    private RulesAcquisition lastLease;
    private RulesAcquisition lastMirrorLease;

    LeaseRun(Function<LuaScript, TokenBucketStore> storeOn, List<RuleBucket> rules,
        RedisHashCommands<String, String> hash, boolean batched) {
      this.clock = new TableClock(storeOn);
      this.rules = rules;
      this.batched = batched;
    }

    @Override
    public void step(int index, QuotaRulesLeaseSpecification.Step step) throws Exception {
      TokenBucketStore s = clock.advance(step.advanceMillis());
      TokenBucketStore.RulesCall call = QuotaRulesLeaseSpecTest.call(rules, step, lastLease);
      RulesAcquisition got;
      if (batched) {
        String other = "other-" + System.nanoTime();
        List<RulesAcquisition> answers = s.acquireAllBatch(List.of(
                new TokenBucketStore.RulesCall(twoRules(other + "-a"), 1, 3, 1_000_000, null),
                call,
                new TokenBucketStore.RulesCall(twoRules(other + "-b"), 2)))
            .toCompletableFuture().get(5, TimeUnit.SECONDS);
        got = answers.get(1);
      } else {
        got = s.acquireAllBatch(List.of(call)).toCompletableFuture().get(5, TimeUnit.SECONDS).get(0);
      }
      TokenBucketStore.RulesCall mirrorCall = QuotaRulesLeaseSpecTest.call(rules, step, lastMirrorLease);
      QuotaRulesMath.Step math = QuotaRulesMath.acquire(mirror, QuotaRulesSpecification.SPECS, mirrorCall,
          clock.micros(), 0, batched ? 2 : 1);
      mirror = math.next();
      RulesAcquisition m = math.acquisition();
      assertEquals(m.granted(), got.granted(), "script = math");
      assertEquals(m.leaseUnits(), got.leaseUnits(), "script = math: lease");
      assertEquals(m.leaseEndMicros(), got.leaseEndMicros(), "script = math: lease end");
      for (int i = 0; i < rules.size(); i++) {
        assertEquals(m.levels().get(i), got.levels().get(i), 1e-6, "script = math");
      }
      assertEquals(m.waitMicros(), got.waitMicros(), 1, "script = math");
      assertEquals(step.expectGranted(), got.granted(), "granted");
      assertEquals(step.expectLease(), got.leaseUnits(), "units leased");
      if (got.leaseUnits() > 0) {
        lastLease = got;
        lastMirrorLease = m;
      }
    }
  }
}
