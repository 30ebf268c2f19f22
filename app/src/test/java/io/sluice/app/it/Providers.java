package io.sluice.app.it;

import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.RedisLeakyBucket;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.redis.RedisConnection;
import io.sluice.redis.SlotMarkers;
import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/** Provider names, HTTP providers and Redis leaks for the dispatcher integration tests. */
final class Providers {
  private Providers() {}

  /** A provider name no other test uses (the Redis leak key is per provider name). */
  static String uniqueName(String stem) {
    return stem + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** One HTTP provider per configured provider, as the application builds them. */
  static Map<String, Provider> http(SluiceConfig config) {
    Map<String, Provider> providers = new HashMap<>();
    config.providers().forEach((name, p) -> providers.put(name,
        HttpProvider.of(name, p, config.secrets())));
    return providers;
  }

  /** A Redis leak on its own connection, as each dispatcher instance has. */
  static LeakyBucket redisLeak(SluiceConfig config, List<AutoCloseable> toClose) {
    RedisConnection connection = RedisConnection.open(config.redis());
    toClose.add(connection);
    // As a starting dispatcher does (DispatcherService): a missing marker reads as lost data.
    SlotMarkers.mark(connection.commands(), false).toCompletableFuture().join();
    return new RedisLeakyBucket(connection.commands(), LeakConfig.of(config.dispatcher()));
  }

  /**
   * Sends a few calls down the HTTP path (client, JIT, loopback sockets) and then resets the
   * mock: the first calls of a cold JVM take up to 100 ms and arrive together, which a test of
   * timing precision must not mistake for the dispatcher's doing.
   */
  static void warmUp(SluiceConfig config, String provider, MockProvider mock) {
    try (Provider http = new HttpProvider(config.providers().get(provider),
        HttpProvider.defaultClient(Duration.ofSeconds(5)))) {
      for (int i = 0; i < 200; i++) {
        http.call(new ProviderCall("warm-up-" + i, "warm-up", new byte[0], Map.of(), 1))
            .toCompletableFuture().join();
      }
    }
    mock.reset();
  }

  /** The same providers, noting when each event's call was handed to them. */
  static Map<String, Provider> timed(Map<String, Provider> providers, Map<String, Long> sentAt) {
    Map<String, Provider> timed = new HashMap<>();
    providers.forEach((name, p) -> timed.put(name, call -> {
      sentAt.put(call.eventId(), System.nanoTime());
      return p.call(call);
    }));
    return timed;
  }

  /** Calls per key, sorted. */
  static <K extends Comparable<K>> Map<K, Integer> count(List<K> keys) {
    Map<K, Integer> counts = new TreeMap<>();
    keys.forEach(k -> counts.merge(k, 1, Integer::sum));
    return counts;
  }

  /**
   * Calls made again, per idempotency key: every call of a key after one of its calls got a final
   * answer (2xx: delivered; a 4xx other than 408 and 429: dead-lettered). Sluice calls an event
   * again only after an answer that asks for a retry (429, 408, 5xx); a call after a final answer
   * is a duplicate whatever it is answered: a new owner calling what the dead one delivered, a
   * settlement written twice. Counting only second 2xx answers (as SigkillTakeoverIT did) misses
   * a duplicate the provider refused, and counts events, not calls. {@code calls} in the order
   * made.
   */
  static Map<String, Integer> callsAfterAFinalAnswer(List<MockProvider.Call> calls) {
    Set<String> settled = new HashSet<>();
    Map<String, Integer> repeated = new TreeMap<>();
    for (MockProvider.Call c : calls) {
      if (settled.contains(c.idempotencyKey())) {
        repeated.merge(c.idempotencyKey(), 1, Integer::sum);
      }
      if (isFinal(c.status())) {
        settled.add(c.idempotencyKey());
      }
    }
    return repeated;
  }

  private static boolean isFinal(int status) {
    return (status >= 200 && status < 300)
        || (status >= 400 && status < 500 && status != 408 && status != 429);
  }

  /** The most calls that started in any window of {@code window}, from arrival times in ns. */
  static int maxInAnyWindow(long[] sortedNanos, Duration window) {
    int best = 0;
    int j = 0;
    for (int i = 0; i < sortedNanos.length; i++) {
      while (sortedNanos[i] - sortedNanos[j] >= window.toNanos()) {
        j++;
      }
      best = Math.max(best, i - j + 1);
    }
    return best;
  }
}
