package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.config.Quota;
import io.sluice.config.Rate;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The tenant registry in a real redis-server: records, their audit trail, and a gate's watcher. */
@ExtendWith(RealServers.class)
class TenantRegistryIT {
  private static final TenantRecord PRO = new TenantRecord("pro",
      Map.of("payments-api", new Quota(60, Rate.parse("20/s"))), false);
  private static final TenantRecord FREE = new TenantRecord("free", Map.of(), true);
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private TenantRegistry registry;

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    client = RedisClient.create(shared.uri());
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    connection.close();
    client.shutdown();
  }

  /** The registry is global: every test starts from an empty one and leaves none behind. */
  @BeforeEach
  @org.junit.jupiter.api.AfterEach
  void empty() {
    List<String> keys = connection.sync().keys("sluice:v1:{tenants}*");
    if (!keys.isEmpty()) {
      connection.sync().del(keys.toArray(String[]::new));
    }
    registry = new TenantRegistry(connection.async());
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }

  @Test
  void aRecordIsReadBackWithWhoAndWhenAndEveryChangeIsAudited() {
    StoredTenant written = await(registry.put("acme", PRO, "ops@host"));
    await(registry.put("acme", FREE, "admin-api@127.0.0.1"));
    assertTrue(await(registry.delete("acme", "ops@host")));
    assertFalse(await(registry.delete("acme", "ops@host")), "nothing left to delete");

    assertTrue(await(registry.get("acme")).tenant().isEmpty());
    List<TenantChange> audit = await(registry.audit("acme"));
    assertEquals(3, audit.size());
    assertEquals(new TenantChange(audit.get(0).at(), "ops@host", FREE, null), audit.get(0));
    assertEquals(FREE, audit.get(1).after());
    assertEquals(PRO, audit.get(1).before());
    assertEquals("admin-api@127.0.0.1", audit.get(1).by());
    assertEquals(new TenantChange(written.at(), "ops@host", null, PRO), audit.get(2));
    long ttl = connection.sync().pttl(TenantRegistry.auditKey("acme"));
    assertTrue(ttl > Duration.ofDays(89).toMillis(), "the trail expires 90 days after the last change");
  }

  @Test
  void theAuditTrailKeepsTheLastHundredChanges() {
    for (int i = 0; i < TenantRegistry.MAX_AUDIT + 5; i++) {
      await(registry.put("acme", i % 2 == 0 ? PRO : FREE, "ops" + i));
    }
    List<TenantChange> audit = await(registry.audit("acme"));
    assertEquals(TenantRegistry.MAX_AUDIT, audit.size());
    assertEquals("ops" + (TenantRegistry.MAX_AUDIT + 4), audit.get(0).by(), "newest first");
  }

  @Test
  void aListIsSortedByIdFilteredByPrefixAndSaysWhenItWasCut() {
    for (String id : List.of("acme-2", "acme-1", "acme-3", "initech")) {
      await(registry.put(id, PRO, "ops"));
    }
    TenantRegistry.Page page = await(registry.list("acme-", 2));
    assertEquals(List.of("acme-1", "acme-2"), page.tenants().stream().map(StoredTenant::id).toList());
    assertTrue(page.truncated());
    assertFalse(await(registry.list("", 10)).truncated());
    assertEquals(4, await(registry.list("", 10)).tenants().size());
  }

  @Test
  void theChangesSinceAVersionNameTheirTenantsAndAGapIsSaid() {
    TenantRegistry.Changes first = await(registry.changes(-1, 10));
    assertEquals(new TenantRegistry.Changes(0, 0, true, List.of()), first);
    await(registry.put("acme", PRO, "ops"));
    await(registry.put("initech", PRO, "ops"));
    await(registry.delete("acme", "ops"));

    assertEquals(new TenantRegistry.Changes(3, 1, false, List.of("acme", "initech", "acme")),
        await(registry.changes(0, 10)));
    assertEquals(new TenantRegistry.Changes(3, 1, false, List.of()), await(registry.changes(3, 10)));
    assertTrue(await(registry.changes(0, 2)).gap(), "more than the most asked for");
    assertTrue(await(registry.changes(7, 10)).gap(), "the version went back (Redis wiped)");
  }

  @Test
  void aValueSomeoneElseWroteIsNoRecord() {
    connection.sync().hset(TenantRegistry.KEY, "acme", "garbage");
    assertTrue(await(registry.get("acme")).tenant().isEmpty());
  }

  @Test
  void aWatcherSeesASetAndADeleteWithinAPollAndKnowsAnEmptyRegistryWithoutAsking() {
    try (TenantWatcher watcher = TenantWatcher.start(registry, 100)) {
      assertEquals(TenantCache.Miss.ABSENT, watcher.cache().onMiss().miss(), "empty: misses cost nothing");
      assertNull(watcher.registered("acme"));

      await(registry.put("acme", PRO, "ops"));
      Await.until("the set is seen", Duration.ofSeconds(3), () -> PRO.equals(watcher.registered("acme")));
      await(registry.put("acme", FREE, "ops"));
      Await.until("the change is seen", Duration.ofSeconds(3), () -> FREE.equals(watcher.registered("acme")));
      await(registry.delete("acme", "ops"));
      Await.until("the delete is seen", Duration.ofSeconds(3), () -> watcher.registered("acme") == null);
    }
  }
}
