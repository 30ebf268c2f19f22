package io.sluice.dispatcher.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.RealServers;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What dispatcher instances tell status their events wait for, kept in a real redis-server. */
@ExtendWith(RealServers.class)
class WaitsStoreIT {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private WaitsStore store;

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    client = RedisClient.create(shared.uri());
    connection = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    connection.sync().del(WaitsStore.KEY);
    connection.close();
    client.shutdown();
  }

  @BeforeEach
  void empty() {
    connection.sync().del(WaitsStore.KEY);
    store = new WaitsStore(connection.async());
  }

  @Test
  void shouldGiveStatusEveryLiveInstancesWaitsAndForgetASilentOne() {
    Waits held = new Waits(3, 1, 0, 1, 1_700_000_060_000L, Map.of("parked", 5_000),
        1_700_000_061_000L, 1_700_002_561_000L);
    await(store.put("a", Map.of("hooks", held)));
    await(store.put("b", Map.of("api", new Waits(10, 4, 0, 0, 0, Map.of(), 0, 0))));

    List<Map<String, Waits>> read = await(store.read());

    assertEquals(2, read.size());
    assertEquals(List.of(held), read.stream().filter(m -> m.containsKey("hooks"))
        .map(m -> m.get("hooks")).toList(), "read as written");

    // Instance b stops writing: once its TTL has passed on Redis's clock it is left out.
    connection.sync().hset(WaitsStore.KEY, "b", "1|{}");
    assertEquals(1, await(store.read()).size(), "a silent instance's field dropped");
    assertEquals(1L, connection.sync().hlen(WaitsStore.KEY));
  }

  @Test
  void shouldCarryTheBacklogByTierAndTenantAndReadAnOlderInstancesWithout() {
    Waits told = new Waits(3, 0, 0, 0, 0, Map.of(), 0, 0,
        Map.of("pro", new Waits.TierWait(3, 1_700_000_000_000L, 1_500)),
        Map.of("acme", 1_700_000_000_000L), 1);
    await(store.put("a", Map.of("hooks", told)));
    // An instance of the version before: no tiers, no tenants.
    connection.sync().hset(WaitsStore.KEY, "old", "99999999999999|{\"api\":{\"queued\":2,"
        + "\"inFlight\":1,\"heldByPause\":0,\"lanesHeld\":0,\"heldUntilMillis\":0,"
        + "\"parked\":{},\"nextDueMillis\":0,\"lastDueMillis\":0}}");

    List<Map<String, Waits>> read = await(store.read());

    assertEquals(List.of(told), read.stream().filter(m -> m.containsKey("hooks"))
        .map(m -> m.get("hooks")).toList(), "read as written");
    assertEquals(List.of(new Waits(2, 1, 0, 0, 0, Map.of(), 0, 0)), read.stream()
        .filter(m -> m.containsKey("api")).map(m -> m.get("api")).toList());
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }
}
