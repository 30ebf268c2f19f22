package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.feedback.ProviderAnnouncement.Family;
import io.sluice.dispatcher.provider.ResponseHeaders;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What Sluice reads from a provider's answer about its limits. */
class RateLimitHeadersTest {
  private static final Instant NOW = Instant.parse("2026-11-23T21:00:00Z");

  private static ProviderAnnouncement read(String... namesAndValues) {
    return RateLimitHeaders.read(ResponseHeaders.of(namesAndValues), NOW);
  }

  private static AnnouncedRemaining left(String name, LimitUnit unit, long r, long resetMillis) {
    return new AnnouncedRemaining(name, unit, r, OptionalLong.of(resetMillis), OptionalLong.empty());
  }

  @Test
  @DisplayName("an answer without rate-limit fields says nothing")
  void nothing() {
    ProviderAnnouncement a = read("Content-Type", "application/json");
    assertEquals(ProviderAnnouncement.NOTHING, a);
    assertEquals(false, a.saysAnything());
  }

  @Nested
  @DisplayName("1. Retry-After")
  class RetryAfterField {
    @Test
    @DisplayName("delta seconds and HTTP dates, read beside any family")
    void read() {
      assertEquals(OptionalLong.of(2_000), RateLimitHeadersTest.read("Retry-After", "2").retryAfterMillis());
      assertEquals(OptionalLong.of(30_000),
          RateLimitHeadersTest.read("Retry-After", "Mon, 23 Nov 2026 21:00:30 GMT").retryAfterMillis());
      ProviderAnnouncement both = RateLimitHeadersTest.read("Retry-After", "5",
          "RateLimit-Policy", "\"m\";q=600;w=60");
      assertEquals(OptionalLong.of(5_000), both.retryAfterMillis());
      assertEquals(1, both.policies().size());
    }

    @Test
    @DisplayName("an unreadable Retry-After is ignored and counted")
    void malformed() {
      ProviderAnnouncement a = RateLimitHeadersTest.read("Retry-After", "soon");
      assertEquals(OptionalLong.empty(), a.retryAfterMillis());
      assertEquals(List.of("retry-after"), a.malformed());
    }
  }

  @Nested
  @DisplayName("2. IETF RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers)")
  class Ietf {
    @Test
    @DisplayName("several policies, each with its quota, window and unit")
    void policies() {
      ProviderAnnouncement a = read("RateLimit-Policy",
          "\"burst\";q=20;w=1, \"minute\";q=600;w=60;qu=\"requests\", \"tokens\";q=5000;w=60;qu=\"tokens\"");
      assertEquals(Family.IETF, a.family());
      assertEquals(List.of(
          new AnnouncedPolicy("burst", LimitUnit.CALLS, 20, 1_000),
          new AnnouncedPolicy("minute", LimitUnit.CALLS, 600, 60_000),
          new AnnouncedPolicy("tokens", LimitUnit.COST, 5000, 60_000)), a.policies());
      assertEquals(List.of(), a.malformed());
    }

    @Test
    @DisplayName("a window over 31 days is malformed: centuries would overflow the window arithmetic")
    void hostileWindow() {
      ProviderAnnouncement a = read("RateLimit-Policy",
          "\"p\";q=100;w=10000000000, \"day\";q=1000;w=86400");
      assertEquals(List.of(new AnnouncedPolicy("day", LimitUnit.CALLS, 1000, 86_400_000)),
          a.policies());
      assertEquals(List.of("ratelimit-policy"), a.malformed());
    }

    @Test
    @DisplayName("RateLimit names its policy, whose unit it takes; t is seconds to the reset")
    void remaining() {
      ProviderAnnouncement a = read(
          "RateLimit-Policy", "\"minute\";q=600;w=60, \"tokens\";q=5000;w=60;qu=\"tokens\"",
          "RateLimit", "\"minute\";r=50;t=30, \"tokens\";r=0;t=12");
      assertEquals(List.of(left("minute", LimitUnit.CALLS, 50, 30_000),
          left("tokens", LimitUnit.COST, 0, 12_000)), a.remaining());
    }

    @Test
    @DisplayName("a field on several lines is one list; parameters in any order; spaces allowed")
    void syntax() {
      ProviderAnnouncement a = RateLimitHeaders.read(new ResponseHeaders(Map.of("ratelimit-policy",
          List.of("\"a\";w=60;q=600", "  \"b\"; q=10;w=1  "))), NOW);
      assertEquals(List.of(new AnnouncedPolicy("a", LimitUnit.CALLS, 600, 60_000),
          new AnnouncedPolicy("b", LimitUnit.CALLS, 10, 1_000)), a.policies());
    }

    @Test
    @DisplayName("RateLimit alone counts calls; t may be absent")
    void remainingAlone() {
      ProviderAnnouncement a = read("RateLimit", "\"default\";r=3");
      assertEquals(List.of(new AnnouncedRemaining("default", LimitUnit.CALLS, 3,
          OptionalLong.empty(), OptionalLong.empty())), a.remaining());
    }

    @Test
    @DisplayName("units Sluice does not count (bytes, concurrency) and policies without a window are skipped, not malformed")
    void skipped() {
      ProviderAnnouncement a = read("RateLimit-Policy",
          "\"bytes\";q=1000;w=60;qu=\"content-bytes\", \"conc\";q=5;qu=\"concurrent-requests\", \"nowindow\";q=5");
      assertEquals(List.of(), a.policies());
      assertEquals(List.of(), a.malformed());
    }

    @Test
    @DisplayName("the IETF fields take precedence over the X- families")
    void precedence() {
      ProviderAnnouncement a = read("RateLimit-Policy", "\"m\";q=600;w=60",
          "X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "4999");
      assertEquals(Family.IETF, a.family());
      assertEquals(List.of(), a.remaining());
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @DisplayName("a field that breaks the syntax is refused whole and counted once")
    @CsvSource(delimiter = '|', value = {
        "\"m\";q=600;w=60,",
        "\"m\";q=600;w=60 \"n\";q=1;w=1",
        "\"m;q=600;w=60",
        "(\"m\" \"n\");q=1;w=1",
        "\"m\";Q=600;w=60",
        "\"m\";q=1234567890123456;w=60",
        "\"m\";q=-1;w=60",
        "\"m\";w=60",
        "\"m\";q=600;w=0",
        "\"m\";q=6.5;w=60",
        "\"m\";q=600;w=60;qu=tokens",
        "\"m\";q=\"600\";w=60",
    })
    void malformedPolicy(String field) {
      ProviderAnnouncement a = read("RateLimit-Policy", field);
      assertEquals(List.of("ratelimit-policy"), a.malformed(), field);
      assertTrue(a.policies().stream().noneMatch(p -> p.name().equals("m") && p.quota() != 600
          || p.windowMillis() <= 0), field);
    }

    @Test
    @DisplayName("a bad member is skipped while the good ones are kept, and the field is counted")
    void badMember() {
      ProviderAnnouncement a = read("RateLimit-Policy", "\"m\";q=600;w=60, \"bad\";q=-5;w=1",
          "RateLimit", "\"m\";r=x");
      assertEquals(List.of(new AnnouncedPolicy("m", LimitUnit.CALLS, 600, 60_000)), a.policies());
      assertEquals(List.of(), a.remaining());
      assertEquals(List.of("ratelimit-policy", "ratelimit"), a.malformed());
    }
  }

  @Nested
  @DisplayName("3. X-RateLimit-* families")
  class XRateLimit {
    @Test
    @DisplayName("GitHub: bare names count calls, the reset is epoch seconds")
    void github() {
      ProviderAnnouncement a = read("X-RateLimit-Limit", "5000", "X-RateLimit-Remaining", "4999",
          "X-RateLimit-Reset", Long.toString(NOW.getEpochSecond() + 3_540),
          "X-RateLimit-Used", "1", "X-RateLimit-Resource", "core");
      assertEquals(Family.X_RATELIMIT, a.family());
      assertEquals(List.of(new AnnouncedRemaining("x-ratelimit", LimitUnit.CALLS, 4999,
          OptionalLong.of(3_540_000), OptionalLong.of(5000))), a.remaining());
      assertEquals(List.of(), a.malformed());
    }

    @Test
    @DisplayName("OpenAI: -requests count calls, -tokens count cost units, resets are Go durations")
    void openAi() {
      ProviderAnnouncement a = read(
          "x-ratelimit-limit-requests", "600", "x-ratelimit-remaining-requests", "599",
          "x-ratelimit-reset-requests", "100ms",
          "x-ratelimit-limit-tokens", "5000", "x-ratelimit-remaining-tokens", "4990",
          "x-ratelimit-reset-tokens", "6m0s");
      assertEquals(List.of(
          new AnnouncedRemaining("x-ratelimit-requests", LimitUnit.CALLS, 599,
              OptionalLong.of(100), OptionalLong.of(600)),
          new AnnouncedRemaining("x-ratelimit-tokens", LimitUnit.COST, 4990,
              OptionalLong.of(360_000), OptionalLong.of(5000))), a.remaining());
    }

    @Test
    @DisplayName("periods (Kong): each states calls per clock-aligned window of its exact length,"
        + " and what remains ends at the period's next boundary")
    void periods() {
      Instant now = NOW.plusMillis(400);
      ProviderAnnouncement a = RateLimitHeaders.read(ResponseHeaders.of(
          "X-RateLimit-Limit-Second", "20", "X-RateLimit-Remaining-Second", "0",
          "X-RateLimit-Limit-Minute", "600", "X-RateLimit-Remaining-Minute", "587",
          "X-RateLimit-Limit-Hour", "10000",
          "RateLimit-Limit", "20", "RateLimit-Remaining", "0", "RateLimit-Reset", "1"), now);
      assertEquals(Family.X_RATELIMIT, a.family());
      assertEquals(List.of(
          new AnnouncedPolicy("x-ratelimit-second", LimitUnit.CALLS, 20, 1_000),
          new AnnouncedPolicy("x-ratelimit-minute", LimitUnit.CALLS, 600, 60_000),
          new AnnouncedPolicy("x-ratelimit-hour", LimitUnit.CALLS, 10_000, 3_600_000)),
          a.policies());
      assertEquals(List.of(
          left("x-ratelimit-second", LimitUnit.CALLS, 0, 600),
          left("x-ratelimit-minute", LimitUnit.CALLS, 587, 59_600)), a.remaining());
      assertEquals(List.of(), a.malformed());
    }

    @Test
    @DisplayName("periods: months and years are not read, an unreadable count is counted")
    void periodsSkippedAndMalformed() {
      ProviderAnnouncement a = read("X-RateLimit-Limit-Month", "100000",
          "X-RateLimit-Remaining-Month", "99999", "X-RateLimit-Limit-Day", "1e6",
          "X-RateLimit-Remaining-Day", "12");
      assertEquals(List.of(), a.policies());
      assertEquals(List.of(left("x-ratelimit-day", LimitUnit.CALLS, 12, 10_800_000)),
          a.remaining());
      assertEquals(List.of("x-ratelimit-limit-day"), a.malformed());
    }

    @Test
    @DisplayName("unreadable values are ignored and counted, one per field; the rest is kept")
    void malformed() {
      ProviderAnnouncement a = read("X-RateLimit-Limit", "lots", "X-RateLimit-Remaining", "-1",
          "X-RateLimit-Reset", "tomorrow",
          "x-ratelimit-remaining-tokens", "10", "x-ratelimit-reset-tokens", "2s");
      assertEquals(List.of("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"),
          a.malformed());
      assertEquals(List.of(new AnnouncedRemaining("x-ratelimit-tokens", LimitUnit.COST, 10,
          OptionalLong.of(2_000), OptionalLong.empty())), a.remaining());
    }
  }

  @Nested
  @DisplayName("resets, in every spelling")
  class Resets {
    @ParameterizedTest(name = "{0} -> {1} ms")
    @CsvSource({
        "30, 30000", "0, 0", "1.5, 1500", "0.001, 1",
        "6m0s, 360000", "1.5s, 1500", "20ms, 20", "1h2m3.5s, 3723500", "300us, 1", "0s, 0",
        "1795471200, 3600000", "1795467000, 0", "1795471200000, 3600000",
        "99999999, 86400000",
    })
    void spelled(String value, long millis) {
      // NOW is 1795467600 epoch seconds.
      assertEquals(OptionalLong.of(millis), ResetTime.millis(value, NOW.toEpochMilli()), value);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource({"soon", "-5", "5 s", "5d", "1.s", "m", "''"})
    void unreadable(String value) {
      assertEquals(OptionalLong.empty(), ResetTime.millis(value, NOW.toEpochMilli()), value);
    }
  }
}
