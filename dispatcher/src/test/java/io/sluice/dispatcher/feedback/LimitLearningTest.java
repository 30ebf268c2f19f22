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
  @DisplayName("each announced policy becomes a limit of its window, living two windows, at least ten minutes and at most an hour")
  void policies() {
    LimitLearning.Step s = learn(Map.of(), answer("RateLimit-Policy",
        "\"s\";q=20;w=1, \"m\";q=600;w=60, \"c\";q=5000;w=60;qu=\"tokens\", \"h\";q=5000;w=3600"),
        T, 1);
    assertEquals(Map.of(
        "s", new LearnedLimit("s", LimitUnit.CALLS, 20, 1_000, T + 600_000),
        "m", new LearnedLimit("m", LimitUnit.CALLS, 600, 60_000, T + 600_000),
        "c", new LearnedLimit("c", LimitUnit.COST, 5000, 60_000, T + 600_000),
        "h", new LearnedLimit("h", LimitUnit.CALLS, 5000, 3_600_000, T + 3_600_000)), s.limits());
    assertEquals(OptionalLong.empty(), s.holdMillis());
  }

  @Test
  @DisplayName("a later statement of a policy replaces it, up as well as down; others listed are kept")
  void replaced() {
    Map<String, LearnedLimit> known = learn(Map.of(),
        answer("RateLimit-Policy", "\"m\";q=600;w=60, \"s\";q=20;w=1"), T, 1).limits();
    LimitLearning.Step s = learn(known, answer("RateLimit-Policy", "\"m\";q=900;w=60, \"s\";w=1"), T + 1000, 1);
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

  // ---- bounds: what one answer can do

  @Test
  @DisplayName("q=0 is a hold of its window, at most maxRetryAfter, and no limit; one learned under its name is dropped")
  void zeroQuotaIsABoundedHold() {
    Map<String, LearnedLimit> known = learn(Map.of(),
        answer("RateLimit-Policy", "\"x\";q=100;w=60"), T, 1).limits();

    LimitLearning.Step s = LimitLearning.learn(known,
        answer("RateLimit-Policy", "\"x\";q=0;w=2678400"), T + 1, 1, () -> 0.5, 300_000);

    assertEquals(Map.of(), s.limits());
    assertEquals(OptionalLong.of(300_000), s.holdMillis());
    assertEquals(OptionalLong.of(2_678_400_500L), s.askedHoldMillis());
    assertEquals(OptionalLong.of(30_500), LimitLearning.learn(Map.of(),
        answer("RateLimit-Policy", "\"x\";q=0;w=30"), T, 1, () -> 0.5, 300_000).holdMillis(),
        "a short one is held whole, jitter included");
  }

  @Test
  @DisplayName("nothing remaining until a far reset holds at most maxRetryAfter, and says what it asked")
  void farResetHoldIsBounded() {
    LimitLearning.Step s = LimitLearning.learn(Map.of(), answer("X-RateLimit-Limit", "5000",
        "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "86400"), T, 1, () -> 0.5, 300_000);
    assertEquals(OptionalLong.of(300_000), s.holdMillis());
    assertEquals(OptionalLong.of(86_400_500), s.askedHoldMillis());
  }

  @Test
  @DisplayName("one far X-RateLimit reset widens the window estimate for at most an hour; shorter statements do not renew it")
  void farResetWidensTheWindowForAnHourAtMost() {
    Map<String, LearnedLimit> known = learn(Map.of(), answer("X-RateLimit-Limit", "5000",
        "X-RateLimit-Remaining", "4999", "X-RateLimit-Reset", "86400"), T, 1).limits();
    assertEquals(86_400_000, known.get("x-ratelimit").windowMillis());

    long t = T;
    for (int minute = 1; minute <= 60; minute++) {
      t = T + minute * 60_000L;
      known = learn(known, answer("X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "4000",
          "X-RateLimit-Reset", "60"), t, 1).limits();
    }

    assertEquals(60_000, known.get("x-ratelimit").windowMillis(),
        "an hour after the far reset, the estimate is what the provider states now");
  }

  @Test
  @DisplayName("a provider keeps at most MAX_LIMITS learned limits, however many one answer lists")
  void fewLimits() {
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      many.append(i == 0 ? "" : ", ").append("\"n").append(i).append("\";q=100;w=").append(60 + i);
    }
    Map<String, LearnedLimit> known = learn(Map.of(), answer("RateLimit-Policy", many.toString()), T, 1)
        .limits();
    assertEquals(LimitLearning.MAX_LIMITS, known.size());
  }

  @Test
  @DisplayName("a provider naming a new policy in each answer keeps only the one its last list names")
  void newNameEachAnswer() {
    Map<String, LearnedLimit> known = Map.of();
    for (int i = 0; i < 50; i++) {
      known = learn(known, answer("RateLimit-Policy", "\"n" + i + "\";q=100;w=60"), T + i, 1)
          .limits();
    }
    assertEquals(java.util.Set.of("n49"), known.keySet());
  }

  @Test
  @DisplayName("a hostile policy (one call a day) is forgotten at the provider's next policy list that leaves it out")
  void hostilePolicyForgottenWhenNoLongerListed() {
    Map<String, LearnedLimit> known = learn(Map.of(), answer("RateLimit-Policy",
        "\"daily\";q=1;w=86400, \"trap\";q=0;w=2678400", "RateLimit", "\"daily\";r=0;t=86400"),
        T, 1).limits();
    assertEquals(java.util.Set.of("daily"), known.keySet(), "learned: it paces at the floor");

    LimitLearning.Step honest = learn(known, answer("RateLimit-Policy", "\"burst\";q=100;w=1",
        "RateLimit", "\"burst\";r=99;t=1"), T + 1000, 1);

    assertEquals(java.util.Set.of("burst"), honest.limits().keySet());
    assertEquals(java.util.Set.of("daily"), honest.unlisted(), "forgotten, for the store too");
  }

  @Test
  @DisplayName("only a readable policy list forgets: an answer without one, a garbled one, or an X-RateLimit answer keeps what was learned")
  void onlyAReadableListForgets() {
    Map<String, LearnedLimit> known = learn(Map.of(), answer("RateLimit-Policy",
        "\"daily\";q=1;w=86400"), T, 1).limits();
    for (ProviderAnnouncement a : java.util.List.of(
        answer("RateLimit", "\"daily\";r=0;t=60"),
        answer("RateLimit-Policy", "\"burst\";q=((("),
        answer("x-ratelimit-limit", "100", "x-ratelimit-remaining", "99", "x-ratelimit-reset", "1"),
        answer())) {
      LimitLearning.Step s = learn(known, a, T + 1000, 1);
      assertEquals(true, s.limits().containsKey("daily"), "kept after " + a);
      assertEquals(java.util.Set.of(), s.unlisted());
    }
    Map<String, LearnedLimit> x = learn(Map.of(), answer("x-ratelimit-limit", "100",
        "x-ratelimit-remaining", "99", "x-ratelimit-reset", "60"), T, 1).limits();
    assertEquals(true, learn(x, answer("RateLimit-Policy", "\"burst\";q=100;w=1"), T + 1, 1)
        .limits().containsKey("x-ratelimit"), "the policy list speaks for its own family only");
  }

  @Test
  @DisplayName("the policy list may not use an X-RateLimit name (a learned limit's name says its family)")
  void xNamesRefusedInThePolicyList() {
    ProviderAnnouncement a = answer("RateLimit-Policy", "\"x-ratelimit-day\";q=1;w=86400, \"m\";q=600;w=60");
    assertEquals(java.util.List.of("ratelimit-policy"), a.malformed());
    assertEquals(java.util.Set.of("m"), learn(Map.of(), a, T, 1).limits().keySet());
  }
}
