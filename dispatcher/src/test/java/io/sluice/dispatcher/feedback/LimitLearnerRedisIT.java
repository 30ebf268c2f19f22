package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import io.sluice.config.ProviderLimit;
import java.time.Duration;
import io.sluice.embedded.RedisServerProcess;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Learned limits shared by dispatcher instances through a real redis-server. */
@ExtendWith(RealServers.class)
class LimitLearnerRedisIT {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private final String provider = "p-" + UUID.randomUUID();
  /** Both instances' clocks; the second runs 5 minutes ahead: skew must change nothing. */
  private final AtomicLong clockA = new AtomicLong(System.currentTimeMillis());
  private final AtomicLong clockB = new AtomicLong(clockA.get() + 300_000);

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

  private LimitLearner learner(AtomicLong clock, LimitLearner.Listener listener) {
    return new LimitLearner(new RedisLearnedLimitStore(connection.async()), clock::get, () -> 0.0,
        listener);
  }

  private static ProviderResult answer(int status, String... headers) {
    return new ProviderResult.Answered(status, null, ResponseHeaders.of(headers));
  }

  @Test
  @DisplayName("what one instance learns from a 2xx, another reads from Redis, expiries on its own clock")
  void shared() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);
    assertEquals(OptionalLong.empty(), a.answered(provider, answer(200, "RateLimit-Policy",
        "\"s\";q=20;w=1, \"m\";q=600;w=60, \"c\";q=5000;w=60;qu=\"tokens\""), 10));
    assertEquals(3, a.current(provider).size());
    assertEquals(List.of(), b.current(provider));
    waitUntil(() -> {
      b.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return b.current(provider).size() == 3;
    });
    List<LearnedLimit> seen = b.current(provider);
    assertEquals(List.of("s", "c", "m"), seen.stream().map(LearnedLimit::name).toList());
    assertEquals(600, seen.get(2).quota());
    long ttl = seen.get(2).expiresAtMillis() - clockB.get();
    assertTrue(ttl > 590_000 && ttl <= 600_000, "expiry on b's clock: " + ttl);
    long pttl = connection.sync().pttl(RedisLearnedLimitStore.redisKey(provider));
    assertTrue(pttl > 590_000 && pttl <= 600_000, "the key fades with its last limit: " + pttl);
  }

  @Test
  @DisplayName("an instance starting reads what the others learned before its first claim")
  void preloaded() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    a.answered(provider, answer(200, "RateLimit-Policy",
        "\"s\";q=20;w=1, \"m\";q=600;w=60"), 1);
    Await.until("a's limits in Redis", Duration.ofSeconds(10),
        () -> connection.sync().exists(RedisLearnedLimitStore.redisKey(provider)) == 1);

    LimitLearner restarted = learner(clockB, LimitLearner.Listener.NONE);
    restarted.preload(List.of(provider, "p-never-announced-" + UUID.randomUUID()),
        Duration.ofSeconds(5));

    assertEquals(List.of("s", "m"),
        restarted.current(provider).stream().map(LearnedLimit::name).toList(),
        "known before any answer of its own");
  }

  @Test
  @DisplayName("an instance that learned nothing itself takes what the others learned, through its limits")
  void adoptedWithoutAnAnswer() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);
    LearningLimitSource limits = new LearningLimitSource(provider,
        LimitSource.fixed(ProviderLimits.rateOnly(100)), b);
    assertEquals(ProviderLimits.rateOnly(100), limits.current(), "nothing learned anywhere");
    a.answered(provider, answer(200, "RateLimit-Policy", "\"m\";q=600;w=60"), 1);
    Await.until("b's limits lowered by a's answer", Duration.ofSeconds(10), () -> {
      clockB.addAndGet(LimitLearner.REFRESH_MILLIS); // due for its next read of the store
      return limits.current().hasLimitsBeyondRate();
    });
    assertEquals(List.of(ProviderLimit.calls(600, Duration.ofMinutes(1),
        ProviderLimit.Window.SLIDING)), limits.current().beyondRate());
  }

  @Test
  @DisplayName("a 429's headers teach too; a later statement replaces the shared limit")
  void replaced() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);
    a.answered(provider, answer(429, "Retry-After", "1", "x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "59s"), 1);
    b.answered(provider, answer(200, "x-ratelimit-limit-requests", "300",
        "x-ratelimit-remaining-requests", "299", "x-ratelimit-reset-requests", "60s"), 1);
    waitUntil(() -> {
      a.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return a.current(provider).size() == 1 && a.current(provider).get(0).quota() == 300;
    });
    assertEquals(60_000, a.current(provider).get(0).windowMillis());
  }

  @Test
  @DisplayName("an X-RateLimit window estimated later (shorter) by another instance does not shorten the shared one")
  void estimatesOnlyGrow() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);
    a.answered(provider, answer(200, "x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "599", "x-ratelimit-reset-requests", "60s"), 1);
    waitUntil(() -> {
      b.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return b.current(provider).size() == 1;
    });
    b.answered(provider, answer(200, "x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "590", "x-ratelimit-reset-requests", "57s"), 1);
    assertEquals(60_000, b.current(provider).get(0).windowMillis());
    LimitLearner c = learner(clockA, LimitLearner.Listener.NONE);
    c.answered(provider, answer(200, "x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "580", "x-ratelimit-reset-requests", "55s"), 1);
    waitUntil(() -> {
      a.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
      c.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
      return c.current(provider).get(0).windowMillis() == 60_000;
    });
    assertEquals(60_000, a.current(provider).get(0).windowMillis());
  }

  @Test
  @DisplayName("malformed fields are counted and learning goes on; nothing remaining holds the provider")
  void malformedAndHold() {
    List<String> malformed = new CopyOnWriteArrayList<>();
    List<Long> holds = new CopyOnWriteArrayList<>();
    LimitLearner a = learner(clockA, new LimitLearner.Listener() {
      @Override
      public void malformedHeader(String p, String header) {
        malformed.add(header);
      }

      @Override
      public void held(String p, long holdMillis) {
        holds.add(holdMillis);
      }
    });
    OptionalLong hold = a.answered(provider, answer(200, "RateLimit-Policy", "\"m\";q=600;w=60, oops(",
        "X-RateLimit-Reset", "never"), 1);
    assertEquals(OptionalLong.empty(), hold);
    assertEquals(List.of("ratelimit-policy"), malformed);
    assertEquals(List.of(), a.current(provider));
    hold = a.answered(provider, answer(200, "RateLimit-Policy", "\"m\";q=600;w=60",
        "RateLimit", "\"m\";r=0;t=7"), 1);
    assertEquals(OptionalLong.of(7_000), hold);
    assertEquals(List.of(7_000L), holds);
    assertEquals(Map.of("m", 600L), Map.of(a.current(provider).get(0).name(),
        a.current(provider).get(0).quota()));
  }

  @Test
  @DisplayName("a hostile answer (q=0 for a month, q=1 a day) holds 5 min at most, paces every instance at the floor, and is gone from Redis within the hour")
  void hostileAnswerIsBounded() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);
    OptionalLong hold = a.answered(provider, answer(200, "RateLimit-Policy",
        "\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400", "RateLimit", "\"daily\";r=0;t=86400"),
        1);

    assertEquals(OptionalLong.of(300_000), hold, "held maxRetryAfter, not a day or a month");
    LearningLimitSource limits = new LearningLimitSource(provider,
        LimitSource.fixed(ProviderLimits.rateOnly(20)), b);
    Await.until("b's limits lowered by a's answer", Duration.ofSeconds(10), () -> {
      clockB.addAndGet(LimitLearner.REFRESH_MILLIS);
      return limits.current().hasLimitsBeyondRate();
    });
    assertEquals(2.0, limits.current().ratePerSecond(), 1e-9, "a tenth of 20/s, not 1/day");
    long pttl = connection.sync().pttl(RedisLearnedLimitStore.redisKey(provider));
    assertTrue(pttl > 0 && pttl <= 3_600_000, "gone from Redis within the hour: " + pttl);
    assertEquals(List.of("daily"), b.current(provider).stream().map(LearnedLimit::name).toList(),
        "q=0 was never a limit");
  }

  @Test
  @DisplayName("a hostile policy the provider's next policy list leaves out is forgotten at once, in Redis too")
  void unlistedPolicyForgotten() throws Exception {
    LimitLearner a = learner(clockA, LimitLearner.Listener.NONE);
    a.answered(provider, answer(200, "RateLimit-Policy", "\"daily\";q=1;w=86400"), 1);
    String key = RedisLearnedLimitStore.redisKey(provider);
    waitUntil(() -> connection.sync().hget(key, "daily") != null);

    a.answered(provider, answer(200, "RateLimit-Policy", "\"burst\";q=100;w=1"), 1);

    assertEquals(List.of("burst"), a.current(provider).stream().map(LearnedLimit::name).toList());
    waitUntil(() -> connection.sync().hget(key, "daily") == null);
    LimitLearner starting = learner(clockB, LimitLearner.Listener.NONE);
    starting.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(List.of("burst"), starting.current(provider).stream().map(LearnedLimit::name).toList(),
        "a starting instance does not preload it");
  }

  @Test
  @DisplayName("a limit stored by an older version to live 62 days is read as living an hour at most")
  void oldLongLivedEntryFades() throws Exception {
    String key = RedisLearnedLimitStore.redisKey(provider);
    long redisNow = Long.parseLong(connection.sync().time().get(0)) * 1000;
    connection.sync().hset(key, "trap", "calls:1:86400000:" + (redisNow + 62L * 86_400_000));
    connection.sync().pexpire(key, 62L * 86_400_000);
    LimitLearner b = learner(clockB, LimitLearner.Listener.NONE);

    b.refresh(provider).toCompletableFuture().get(5, TimeUnit.SECONDS);

    long ttl = b.current(provider).get(0).expiresAtMillis() - clockB.get();
    assertTrue(ttl > 3_590_000 && ttl <= 3_600_000, "an hour at most: " + ttl);
    long pttl = connection.sync().pttl(key);
    assertTrue(pttl > 0 && pttl <= 3_600_000, "the key too: " + pttl);
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  private static void waitUntil(Condition condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s");
      }
      Thread.onSpinWait();
    }
  }
}
