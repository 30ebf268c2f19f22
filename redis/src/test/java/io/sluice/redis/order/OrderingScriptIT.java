package io.sluice.redis.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ScriptOutputType;
import io.sluice.config.RedisConfig;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisAccess;
import io.sluice.testkit.Await;
import io.sluice.testkit.ClusterOnRedis;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code lua/ordering.lua} through {@link RedisOrderStore} on a real redis-server: turns given in
 * order and once per record, moved once per settlement, scoped by tenant, bounded per tenant, and
 * nothing left in Redis once a key drains; and on a 3-node cluster, each tenant's two keys in one slot. The tests share one redis-server: each has its tenants.
 */
@ExtendWith(RealServers.class)
class OrderingScriptIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  /** One 3-node cluster for the class, started by the test that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

  @AfterAll
  static void stopCluster() throws Exception {
    CLUSTER.close();
  }

  @Test
  void shouldRunOnARedisClusterEachTenantsKeysInTheirOneSlot() throws Exception {
    RedisAccess access = CLUSTER.closing(RedisAccess.open(new RedisConfig(CLUSTER.uri()), "ordering-cluster-it"));
    RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
    for (String tenant : List.of("acme", "globex", "initech", "umbrella")) {
      OrderKeys keys = new OrderKeys("hooks", tenant);
      OrderTicket head = given(store.assign(keys, "k", "sluice.inbound-0@1", 10));
      OrderTicket next = given(store.assign(keys, "k", "sluice.inbound-0@2", 10));
      assertEquals(new OrderTicket(head.epoch(), 2), next, tenant);
      store.settle(keys, "k", head, OrderStore.Settled.DELIVERED, false);
      awaitNext(store, keys, "k", 2, tenant + "'s key to move to 2");
    }
  }

  @Test
  void shouldGiveTurnsInOrderOncePerRecordAndMoveThemOncePerSettlement(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "ordering-it")) {
      RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
      OrderKeys acme = new OrderKeys("hooks", "acme");
      OrderTicket first = given(store.assign(acme, "order-1", "sluice.inbound-0@10", 10));
      OrderTicket second = given(store.assign(acme, "order-1", "sluice.inbound-0@11", 10));
      assertEquals(1, first.seq());
      assertEquals(new OrderTicket(first.epoch(), 2), second);
      assertEquals(first, given(store.assign(acme, "order-1", "sluice.inbound-0@10", 10)),
          "the gate reading a record again gets its ticket again");
      // Another tenant's key of the same name is another key.
      assertEquals(1, given(store.assign(new OrderKeys("hooks", "globex"), "order-1", "sluice.inbound-1@3", 10)).seq());

      assertEquals(Optional.of(new KeyTurn(first.epoch(), 1, 0)), store.turn(acme, "order-1").state());
      store.settle(acme, "order-1", first, OrderStore.Settled.DELIVERED, false);
      store.settle(acme, "order-1", first, OrderStore.Settled.DELIVERED, false);
      awaitNext(store, acme, "order-1", 2, "the first's settlement to move the key to 2");
      assertEquals(Optional.of(new KeyTurn(first.epoch(), 2, 0)), store.turn(acme, "order-1").state(),
          "the head's second settlement moved nothing");
      store.settle(acme, "order-1", second, OrderStore.Settled.DELIVERED, false);
      Await.until("the drained key to be gone", TIMEOUT, () -> store.turn(acme, "order-1").answered()
          && store.turn(acme, "order-1").state().isEmpty());
      assertEquals(0L, exists(access, acme.key("order-1")) + exists(access, acme.inFlight()), "nothing left");
      assertTrue(given(store.assign(acme, "order-1", "sluice.inbound-0@12", 10)).epoch() > first.epoch(),
          "a key starting again starts a new epoch");
    }
  }

  @Test
  void shouldBlockTheFollowersGivenBeforeADeadHeadWhenAskedTo(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "ordering-dead-it")) {
      RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
      OrderKeys acme = new OrderKeys("hooks", "initech");
      OrderTicket head = given(store.assign(acme, "k", "sluice.inbound-0@1", 10));
      given(store.assign(acme, "k", "sluice.inbound-0@2", 10));
      given(store.assign(acme, "k", "sluice.inbound-0@3", 10));
      store.settle(acme, "k", head, OrderStore.Settled.DEAD, true);
      awaitNext(store, acme, "k", 2, "the dead head to move the key");
      assertEquals(Optional.of(new KeyTurn(head.epoch(), 2, 3)), store.turn(acme, "k").state());
      OrderTicket late = given(store.assign(acme, "k", "sluice.inbound-0@4", 10));
      assertEquals(new OrderTurn.Blocked(), OrderTurn.of(new OrderTicket(head.epoch(), 2), store.turn(acme, "k").state(), 1_000));
      assertEquals(new OrderTurn.Wait(2, 2_000), OrderTurn.of(late, store.turn(acme, "k").state(), 1_000),
          "given after the death: not blocked, waits its turn");
    }
  }

  @Test
  void shouldSkipAFollowerDeadBeforeItsTurnWhenTheTurnReachesIt(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "ordering-gone-it")) {
      RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
      OrderKeys soylent = new OrderKeys("hooks", "soylent");
      OrderTicket head = given(store.assign(soylent, "k", "sluice.inbound-0@1", 10));
      OrderTicket second = given(store.assign(soylent, "k", "sluice.inbound-0@2", 10));
      OrderTicket third = given(store.assign(soylent, "k", "sluice.inbound-0@3", 10));
      given(store.assign(soylent, "k", "sluice.inbound-0@4", 10));
      store.settle(soylent, "k", third, OrderStore.Settled.DEAD, false);
      store.settle(soylent, "k", second, OrderStore.Settled.DEAD, false);
      Await.until("the followers' early deaths to be written", TIMEOUT,
          () -> marked(access, soylent.key("k"), "g:2") && marked(access, soylent.key("k"), "g:3"));
      assertEquals(Optional.of(new KeyTurn(head.epoch(), 1, 0)), store.turn(soylent, "k").state(),
          "the head still holds the key");
      store.settle(soylent, "k", head, OrderStore.Settled.DELIVERED, false);
      awaitNext(store, soylent, "k", 4, "the turn to pass the head and both dead followers");
    }
  }

  @Test
  void shouldBoundTheKeysInFlightOfATenantAndNoOtherTenant(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "ordering-bound-it")) {
      RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
      OrderKeys acme = new OrderKeys("hooks", "umbrella");
      OrderTicket a = given(store.assign(acme, "a", "sluice.inbound-0@1", 2));
      given(store.assign(acme, "b", "sluice.inbound-0@2", 2));
      given(store.assign(acme, "a", "sluice.inbound-0@3", 2));
      assertEquals(new OrderStore.Assigned.Full(2), store.assign(acme, "c", "sluice.inbound-0@4", 2));
      given(store.assign(new OrderKeys("hooks", "hooli"), "c", "sluice.inbound-1@1", 2));
      store.settle(acme, "a", a, OrderStore.Settled.DELIVERED, false);
      store.settle(acme, "a", new OrderTicket(a.epoch(), 2), OrderStore.Settled.DELIVERED, false);
      Await.until("key a to drain and leave its place", TIMEOUT,
          () -> store.assign(acme, "c", "sluice.inbound-0@4", 2) instanceof OrderStore.Assigned.Given);
    }
  }

  /** Prints what ordering costs in Redis: a round trip per call, and memory per key in flight. */
  @Test
  void shouldSayWhatAKeyInFlightCosts(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "ordering-cost-it")) {
      RedisOrderStore store = new RedisOrderStore(access.commands(), access.circuit(), TIMEOUT);
      long before = usedMemory(access);
      int keys = 10_000;
      long start = System.nanoTime();
      for (int i = 0; i < keys; i++) {
        given(store.assign(new OrderKeys("hooks", "tenant-" + (i % 100)), "order-" + i,
            "sluice.inbound-" + (i % 12) + "@" + (1_000_000 + i), 100_000));
      }
      double micros = (System.nanoTime() - start) / 1000.0 / keys;
      long perKey = (usedMemory(access) - before) / keys;
      System.out.printf("ordering: %.1f us per assignment (round trip, one connection), %d bytes of Redis"
          + " memory per key with one event in flight%n", micros, perKey);
      assertTrue(perKey > 0 && perKey < 2_000, "a key in flight costs little: " + perKey);
    }
  }

  private static OrderTicket given(OrderStore.Assigned assigned) {
    return assertInstanceOf(OrderStore.Assigned.Given.class, assigned).ticket();
  }

  private static boolean marked(RedisAccess access, String key, String field) {
    try {
      return (Long) access.commands().eval("return redis.call('HEXISTS', KEYS[1], ARGV[1])", ScriptOutputType.INTEGER,
          new String[] {key}, field).get(2, TimeUnit.SECONDS) == 1L;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static long exists(RedisAccess access, String key) throws Exception {
    return (Long) access.commands().eval("return redis.call('EXISTS', KEYS[1])", ScriptOutputType.INTEGER, key)
        .get(2, TimeUnit.SECONDS);
  }

  private static long usedMemory(RedisAccess access) throws Exception {
    String info = (String) access.commands().eval("return redis.call('INFO', 'memory')", ScriptOutputType.VALUE)
        .get(2, TimeUnit.SECONDS);
    return info.lines().filter(l -> l.startsWith("used_memory:")).map(l -> Long.parseLong(l.substring(12).trim()))
        .findFirst().orElseThrow();
  }

  /** Waits until the key's turn has moved to {@code next} (settlements are written asynchronously). */
  private static void awaitNext(RedisOrderStore store, OrderKeys keys, String key, long next,
      String what) {
    Await.until(what, TIMEOUT,
        () -> store.turn(keys, key).state().map(KeyTurn::next).orElse(0L) == next);
  }
}
