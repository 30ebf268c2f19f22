package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.provider.ResponseHeaders;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What answers teach about a provider's limits. */
class LimitLearningTest {
  private static final Instant NOW = Instant.parse("2026-11-23T21:00:00Z");
  private static final long T = NOW.toEpochMilli();

  private static ProviderAnnouncement answer(String... headers) {
    return RateLimitHeaders.read(ResponseHeaders.of(headers), NOW);
  }

  private static LimitLearning.Step learn(Map<String, LearnedLimit> known, ProviderAnnouncement a,
      long now, long cost) {
    return LimitLearning.learn(known, a, now, cost, () -> 0.5);
  }

  @Test
  @DisplayName("each announced policy becomes a limit of its window, living ten minutes or two windows")
  void policies() {
    LimitLearning.Step s = learn(Map.of(), answer("RateLimit-Policy",
        "\"s\";q=20;w=1, \"m\";q=600;w=60, \"c\";q=5000;w=60;qu=\"tokens\", \"h\";q=5000;w=3600"),
        T, 1);
    assertEquals(Map.of(
        "s", new LearnedLimit("s", LimitUnit.CALLS, 20, 1_000, T + 600_000),
        "m", new LearnedLimit("m", LimitUnit.CALLS, 600, 60_000, T + 600_000),
        "c", new LearnedLimit("c", LimitUnit.COST, 5000, 60_000, T + 600_000),
        "h", new LearnedLimit("h", LimitUnit.CALLS, 5000, 3_600_000, T + 7_200_000)), s.limits());
    assertEquals(OptionalLong.empty(), s.holdMillis());
  }

  @Test
  @DisplayName("a later statement of a policy replaces it, up as well as down; others are kept")
  void replaced() {
    Map<String, LearnedLimit> known = learn(Map.of(),
        answer("RateLimit-Policy", "\"m\";q=600;w=60, \"s\";q=20;w=1"), T, 1).limits();
    LimitLearning.Step s = learn(known, answer("RateLimit-Policy", "\"m\";q=900;w=60"), T + 1000, 1);
    assertEquals(900, s.limits().get("m").quota());
    assertEquals(20, s.limits().get("s").quota());
  }

  @Test
  @DisplayName("the same quota stated with a shorter window keeps the longer one")
  void longerWindowKept() {
    Map<String, LearnedLimit> known = learn(Map.of(),
        answer("RateLimit-Policy", "\"m\";q=600;w=60"), T, 1).limits();
    assertEquals(60_000, learn(known, answer("RateLimit-Policy", "\"m\";q=600;w=57"), T + 1, 1)
        .limits().get("m").windowMillis());
    assertEquals(30_000, learn(known, answer("RateLimit-Policy", "\"m\";q=500;w=30"), T + 1, 1)
        .limits().get("m").windowMillis(), "another quota is another statement");
  }

  @Test
  @DisplayName("a limit not stated again fades at its expiry")
  void fades() {
    Map<String, LearnedLimit> known = learn(Map.of(),
        answer("RateLimit-Policy", "\"m\";q=600;w=60"), T, 1).limits();
    assertEquals(1, learn(known, answer(), T + 599_999, 1).limits().size());
    assertEquals(Map.of(), learn(known, answer(), T + 600_000, 1).limits());
  }

  @Test
  @DisplayName("X-RateLimit: the window is the longest reset seen, in whole seconds")
  void xWindow() {
    LimitLearning.Step first = learn(Map.of(), answer("x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "599", "x-ratelimit-reset-requests", "59.2"), T, 1);
    assertEquals(new LearnedLimit("x-ratelimit-requests", LimitUnit.CALLS, 600, 60_000,
        T + 600_000), first.limits().get("x-ratelimit-requests"));
    LimitLearning.Step shorter = learn(first.limits(), answer("x-ratelimit-limit-requests", "600",
        "x-ratelimit-remaining-requests", "500", "x-ratelimit-reset-requests", "10s"), T + 50, 1);
    assertEquals(60_000, shorter.limits().get("x-ratelimit-requests").windowMillis());
    LimitLearning.Step tokens = learn(Map.of(), answer("x-ratelimit-limit-tokens", "5000",
        "x-ratelimit-remaining-tokens", "4990", "x-ratelimit-reset-tokens", "6m0s"), T, 10);
    assertEquals(new LearnedLimit("x-ratelimit-tokens", LimitUnit.COST, 5000, 360_000,
        T + 720_000), tokens.limits().get("x-ratelimit-tokens"));
  }

  @Test
  @DisplayName("nothing remaining holds the provider until the reset, plus jitter up to a tenth (at most 1 s)")
  void holds() {
    assertEquals(OptionalLong.of(30_500), learn(Map.of(),
        answer("RateLimit-Policy", "\"m\";q=600;w=60", "RateLimit", "\"m\";r=0;t=30"), T, 1)
        .holdMillis());
    assertEquals(OptionalLong.of(2_100), learn(Map.of(),
        answer("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "2"), T, 1).holdMillis());
    assertEquals(OptionalLong.empty(), learn(Map.of(),
        answer("RateLimit", "\"m\";r=1;t=30"), T, 1).holdMillis());
    assertEquals(OptionalLong.empty(), learn(Map.of(),
        answer("RateLimit", "\"m\";r=0"), T, 1).holdMillis(), "no reset: nothing to wait for");
  }

  @Test
  @DisplayName("cost: less remaining than the call just made holds; as much does not")
  void costHolds() {
    String policy = "\"c\";q=5000;w=60;qu=\"tokens\"";
    assertEquals(OptionalLong.of(4_200), learn(Map.of(),
        answer("RateLimit-Policy", policy, "RateLimit", "\"c\";r=9;t=4"), T, 10).holdMillis());
    assertEquals(OptionalLong.empty(), learn(Map.of(),
        answer("RateLimit-Policy", policy, "RateLimit", "\"c\";r=10;t=4"), T, 10).holdMillis());
  }

  @Test
  @DisplayName("the longest hold wins; jitter differs per instance")
  void longestHold() {
    ProviderAnnouncement a = answer("x-ratelimit-remaining-requests", "0",
        "x-ratelimit-reset-requests", "1s", "x-ratelimit-remaining-tokens", "0",
        "x-ratelimit-reset-tokens", "20s");
    assertEquals(OptionalLong.of(20_000), LimitLearning.learn(Map.of(), a, T, 1, () -> 0.0).holdMillis());
    assertEquals(OptionalLong.of(20_999), LimitLearning.learn(Map.of(), a, T, 1, () -> 0.9999).holdMillis());
  }
}
