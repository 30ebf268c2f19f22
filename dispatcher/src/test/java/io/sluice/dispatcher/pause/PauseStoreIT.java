package io.sluice.dispatcher.pause;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Pauses kept in a real redis-server, and watched. */
@ExtendWith(RealServers.class)
class PauseStoreIT {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private PauseStore store;

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

  @BeforeEach
  void empty() {
    connection.sync().del(PauseStore.KEY);
    store = new PauseStore(connection.async());
  }

  /** The pauses are global: none may outlive its test, or another's events would be held. */
  @AfterEach
  void removeAll() {
    connection.sync().del(PauseStore.KEY);
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }

  @Test
  @DisplayName("a pause is stored with who, Redis's time and why, read back, and removed by its scope alone")
  void pauseReadResume() {
    Instant before = Instant.now().minusSeconds(5);
    Pause stored = await(store.pause(PauseScope.provider("payments"), "ana@ops-1", "partner 500s"));
    await(store.pause(PauseScope.of("payments", "acme"), "ana@ops-1", ""));
    PauseRules rules = await(store.read());
    assertEquals(stored, rules.all().get(0));
    assertEquals("ana@ops-1", stored.by());
    assertEquals("partner 500s", stored.reason());
    assertTrue(stored.at().isAfter(before) && stored.at().isBefore(Instant.now().plusSeconds(5)),
        "on Redis's clock: " + stored.at());
    assertEquals(PauseRules.Decision.HOLD, rules.decide("payments", "globex", null, Instant.now()));

    assertTrue(await(store.resume(PauseScope.provider("payments"))));
    assertFalse(await(store.resume(PauseScope.provider("payments"))), "nothing left to resume");
    PauseRules left = await(store.read());
    assertEquals(List.of("payments/acme"), left.all().stream().map(p -> p.scope().field()).toList());
  }

  @Test
  @DisplayName("a hostile reason is stored cleaned and bounded")
  void hostileReason() {
    await(store.pause(PauseScope.tenant("acme"), "x\ny", "line\r\nINFO forged\u001b[2J"
        + "z".repeat(10_000)));
    Pause read = await(store.read()).all().get(0);
    assertEquals("x y", read.by());
    assertTrue(read.reason().startsWith("line INFO forged [2Jzzz"), read.reason());
    assertEquals(OperatorText.MAX_REASON, read.reason().codePointCount(0, read.reason().length()));
    assertTrue(connection.sync().hget(PauseStore.KEY, "*/acme").length() < 400);
  }

  @Test
  @DisplayName("beyond the most pauses a new one is refused; replacing one in force is not")
  void bounded() {
    java.util.Map<String, String> many = new java.util.HashMap<>();
    for (int i = 0; i < PauseStore.MAX_PAUSES; i++) {
      many.put("*/t" + i, "0 {}");
    }
    connection.sync().hset(PauseStore.KEY, many);
    CompletionException refused = assertThrows(CompletionException.class,
        () -> await(store.pause(PauseScope.tenant("one-more"), "ana", "")));
    assertInstanceOf(PauseStore.TooManyPauses.class, refused.getCause());
    await(store.pause(PauseScope.tenant("t7"), "ana", "again"));
    assertEquals(PauseStore.MAX_PAUSES, await(store.read()).all().size());
  }

  @Test
  @DisplayName("what others wrote: a field naming no scope is skipped, an unreadable value still pauses")
  void foreignWrites() {
    connection.sync().hset(PauseStore.KEY, "garbage", "x");
    connection.sync().hset(PauseStore.KEY, "payments/*", "not json at all");
    PauseRules rules = await(store.read());
    assertEquals(1, rules.all().size());
    assertEquals("unknown", rules.all().get(0).by());
    assertTrue(rules.pausesAllOf("payments"));
  }

  @Test
  @DisplayName("a watcher sees a pause, and its lifting, within one poll and the read's time")
  void watcherFollows() {
    try (PauseWatcher watcher = PauseWatcher.start(store)) {
      await(store.pause(PauseScope.provider("payments"), "ana", ""));
      Duration limit = PauseWatcher.POLL.plusMillis(500);
      Await.until("the pause seen", limit, () -> watcher.current().pausesAllOf("payments"));
      await(store.resume(PauseScope.provider("payments")));
      Await.until("the resume seen", limit, () -> watcher.current().isEmpty());
      assertFalse(watcher.failing());
    }
  }
}
