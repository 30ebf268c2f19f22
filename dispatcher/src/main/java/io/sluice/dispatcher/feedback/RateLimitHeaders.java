package io.sluice.dispatcher.feedback;

import io.sluice.dispatcher.provider.ResponseHeaders;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads what a provider's answer says about its limits. Pure: "now" is passed in; never throws.
 *
 * <p>Precedence, as the issue and the draft put it:
 *
 * <ol>
 *   <li>{@code Retry-After} (RFC 9110: delta seconds or an HTTP date), always read;</li>
 *   <li>the IETF fields of draft-ietf-httpapi-ratelimit-headers (-08 and later): {@code
 *       RateLimit-Policy: "burst";q=100;w=60;qu="requests", "day";q=1000;w=86400} (a Structured
 *       Field List: {@code q} quota, {@code w} window in seconds, {@code qu} quota unit) and
 *       {@code RateLimit: "burst";r=50;t=30} ({@code r} remaining, {@code t} seconds to reset,
 *       naming the policy it belongs to). When either is present the X- families are not read:
 *       a provider that speaks the standard means it;</li>
 *   <li>the common {@code X-RateLimit-Limit/Remaining/Reset} families, bare (GitHub: calls, reset
 *       in epoch seconds) or suffixed {@code -Requests} (calls) and {@code -Tokens} (cost units;
 *       OpenAI: resets as Go durations, {@code 6m0s}). See {@link ResetTime}. And the family
 *       suffixed by a period, {@code X-RateLimit-Limit-Second}, {@code -Minute}, {@code -Hour},
 *       {@code -Day} with {@code X-RateLimit-Remaining-<period>} (Kong's rate-limiting plugin and
 *       gateways like it): calls per fixed window of that period, aligned to the UTC clock, so
 *       several windows are stated at once with their exact lengths (a {@code 20/s} beside a
 *       {@code 600/min}, which the {@code -Requests} family has no room for). There is no reset
 *       field per period; the window's end is the next boundary of the period. {@code -Month} and
 *       {@code -Year} are skipped: no one paces calls by them, and a calendar month has no fixed
 *       length.</li>
 * </ol>
 *
 * <p>Quota units: {@code qu} absent or {@code "requests"} counts calls; {@code "content-bytes"} and
 * {@code "concurrent-requests"} are not what Sluice's limits count and are skipped (not malformed);
 * any other unit ({@code "tokens"}, {@code "cost"}, ...) counts cost units. A policy without a
 * window ({@code w}) states no rate and is skipped.
 *
 * <p>A field that is present and unreadable (a Structured Field that does not parse, a negative or
 * missing {@code q}, a non-numeric remaining, a reset in no known spelling) is left out and named
 * in {@link ProviderAnnouncement#malformed()}, once per field; what else the answer says is still
 * read.
 */
final class RateLimitHeaders {
  private static final Pattern COUNT = Pattern.compile("\\d{1,15}");
  private static final String[] X_SUFFIXES = {"", "-requests", "-tokens"};
  /** The periods of the period-suffixed family ({@code x-ratelimit-limit-<period>}). */
  private enum Period {
    SECOND(1), MINUTE(60), HOUR(3_600), DAY(86_400);

    final String suffix = name().toLowerCase(Locale.ROOT);
    final long millis;

    Period(long seconds) {
      this.millis = seconds * 1000;
    }
  }

  private RateLimitHeaders() {}

  /**
   * The longest policy window taken, in seconds (31 days). A longer one is not a limit anyone
   * paces by, and a hostile one (centuries) would overflow the window arithmetic downstream, so
   * it counts as malformed.
   */
  static final long MAX_WINDOW_SECONDS = 31L * 24 * 3600;

  private static boolean isWindow(Object w) {
    return isPositive(w) && (Long) w <= MAX_WINDOW_SECONDS;
  }

  public static ProviderAnnouncement read(ResponseHeaders headers, Instant now) {
    if (headers == null || headers.isEmpty()) {
      return ProviderAnnouncement.NOTHING;
    }
    List<String> malformed = new ArrayList<>();
    String retryAfterField = headers.first("retry-after");
    OptionalLong retryAfter = RetryAfter.millis(retryAfterField, now);
    if (retryAfterField != null && retryAfter.isEmpty()) {
      malformed.add("retry-after");
    }
    List<AnnouncedPolicy> policies = new ArrayList<>();
    List<AnnouncedRemaining> remaining = new ArrayList<>();
    Set<String> listed = new HashSet<>();
    boolean listRead = false;
    ProviderAnnouncement.Family family = ProviderAnnouncement.Family.NONE;
    String policyField = headers.combined("ratelimit-policy");
    String stateField = headers.combined("ratelimit");
    if (policyField != null || stateField != null) {
      family = ProviderAnnouncement.Family.IETF;
      listRead = readIetf(policyField, stateField, policies, remaining, malformed, listed);
    } else {
      for (String suffix : X_SUFFIXES) {
        if (readX(headers, suffix, now.toEpochMilli(), policies, remaining, malformed)) {
          family = ProviderAnnouncement.Family.X_RATELIMIT;
        }
      }
      for (Period period : Period.values()) {
        if (readPeriod(headers, period, now.toEpochMilli(), policies, remaining, malformed)) {
          family = ProviderAnnouncement.Family.X_RATELIMIT;
        }
      }
    }
    return new ProviderAnnouncement(family, retryAfter, policies, remaining, malformed,
        listRead ? Optional.of(listed) : Optional.empty());
  }

  /**
   * Reads the IETF fields; true when a {@code RateLimit-Policy} field was there and parsed as a
   * list, whose policy names are then in {@code listed}.
   */
  private static boolean readIetf(String policyField, String stateField,
      List<AnnouncedPolicy> policies, List<AnnouncedRemaining> remaining, List<String> malformed,
      Set<String> listed) {
    Map<String, LimitUnit> units = new HashMap<>();
    boolean listRead = false;
    if (policyField != null) {
      boolean bad = false;
      try {
        for (StructuredList.Item item : StructuredList.parse(policyField)) {
          String name = name(item);
          if (name != null && isXName(name)) {
            // The X- families' names: a learned limit's name says which family stated it.
            bad = true;
            continue;
          }
          if (name != null) {
            listed.add(name);
          }
          Object q = item.params().get("q");
          Object w = item.params().get("w");
          Object qu = item.params().get("qu");
          if (name == null || !isCount(q) || (w != null && !isWindow(w))
              || (qu != null && !(qu instanceof String))) {
            bad = true;
            continue;
          }
          LimitUnit unit = unit((String) qu);
          if (unit == null) {
            continue; // content-bytes, concurrent-requests: not a limit Sluice counts
          }
          units.put(name, unit);
          if (w != null) {
            policies.add(new AnnouncedPolicy(name, unit, (Long) q, (Long) w * 1000));
          }
        }
        listRead = true;
      } catch (StructuredList.Malformed e) {
        bad = true;
        listed.clear();
      }
      if (bad) {
        malformed.add("ratelimit-policy");
      }
    }
    if (stateField != null) {
      boolean bad = false;
      try {
        for (StructuredList.Item item : StructuredList.parse(stateField)) {
          String name = name(item);
          Object r = item.params().get("r");
          Object t = item.params().get("t");
          if (name == null || !isCount(r) || (t != null && !isCount(t))) {
            bad = true;
            continue;
          }
          LimitUnit unit = units.getOrDefault(name, policyField == null ? LimitUnit.CALLS : null);
          if (unit == null) {
            continue; // a policy this answer did not describe, or one Sluice does not count
          }
          OptionalLong reset = t == null ? OptionalLong.empty()
              : OptionalLong.of(Math.min(RetryAfter.MAX_MILLIS, (Long) t * 1000));
          remaining.add(new AnnouncedRemaining(name, unit, (Long) r, reset, OptionalLong.empty()));
        }
      } catch (StructuredList.Malformed e) {
        bad = true;
      }
      if (bad) {
        malformed.add("ratelimit");
      }
    }
    return listRead;
  }

  /** Reads one X- family; true if any of its fields was present. */
  private static boolean readX(ResponseHeaders headers, String suffix, long nowMillis,
      List<AnnouncedPolicy> policies, List<AnnouncedRemaining> remaining, List<String> malformed) {
    String limitName = "x-ratelimit-limit" + suffix;
    String remainingName = "x-ratelimit-remaining" + suffix;
    String resetName = "x-ratelimit-reset" + suffix;
    String limitField = headers.first(limitName);
    String remainingField = headers.first(remainingName);
    String resetField = headers.first(resetName);
    if (limitField == null && remainingField == null && resetField == null) {
      return false;
    }
    OptionalLong limit = count(limitField, limitName, malformed);
    OptionalLong left = count(remainingField, remainingName, malformed);
    OptionalLong reset = OptionalLong.empty();
    if (resetField != null) {
      reset = ResetTime.millis(resetField, nowMillis);
      if (reset.isEmpty()) {
        malformed.add(resetName);
      }
    }
    if (left.isPresent()) {
      LimitUnit unit = suffix.equals("-tokens") ? LimitUnit.COST : LimitUnit.CALLS;
      remaining.add(new AnnouncedRemaining("x-ratelimit" + suffix, unit, left.getAsLong(), reset,
          limit));
    }
    return true;
  }

  /**
   * Reads one period of the period-suffixed family ({@code X-RateLimit-Limit-Minute: 600},
   * {@code X-RateLimit-Remaining-Minute: 599}); true if either field was present. The limit is a
   * policy with the period as its window, named {@code x-ratelimit-<period>}: exact, so it needs
   * no estimate from resets. What remains resets at the next UTC boundary of the period (a fixed
   * window), which is when a hold for "none left" ends; Sluice paces by a sliding window of the
   * same length, which is stricter than the provider's fixed one (every fixed window lies inside
   * some sliding one).
   */
  private static boolean readPeriod(ResponseHeaders headers, Period period, long nowMillis,
      List<AnnouncedPolicy> policies, List<AnnouncedRemaining> remaining, List<String> malformed) {
    String limitName = "x-ratelimit-limit-" + period.suffix;
    String remainingName = "x-ratelimit-remaining-" + period.suffix;
    String limitField = headers.first(limitName);
    String remainingField = headers.first(remainingName);
    if (limitField == null && remainingField == null) {
      return false;
    }
    String name = "x-ratelimit-" + period.suffix;
    count(limitField, limitName, malformed).ifPresent(
        q -> policies.add(new AnnouncedPolicy(name, LimitUnit.CALLS, q, period.millis)));
    count(remainingField, remainingName, malformed).ifPresent(left -> {
      long untilBoundary = period.millis - Math.floorMod(nowMillis, period.millis);
      remaining.add(new AnnouncedRemaining(name, LimitUnit.CALLS, left,
          OptionalLong.of(untilBoundary), OptionalLong.empty()));
    });
    return true;
  }

  private static OptionalLong count(String field, String name, List<String> malformed) {
    if (field == null) {
      return OptionalLong.empty();
    }
    String v = field.trim();
    if (!COUNT.matcher(v).matches()) {
      malformed.add(name);
      return OptionalLong.empty();
    }
    return OptionalLong.of(Long.parseLong(v));
  }

  /**
   * Whether {@code name} is one the {@code X-RateLimit-*} families learn under
   * ({@code x-ratelimit}, {@code x-ratelimit-requests}, {@code x-ratelimit-minute}, ...).
   */
  public static boolean isXName(String name) {
    return name.startsWith("x-ratelimit");
  }

  private static String name(StructuredList.Item item) {
    if (item.value() instanceof String s) {
      return s;
    }
    // Drafts before -08 named policies with tokens; accepted, it costs nothing.
    return item.value() instanceof StructuredList.Token t ? t.text() : null;
  }

  private static LimitUnit unit(String qu) {
    if (qu == null || qu.equals("requests")) {
      return LimitUnit.CALLS;
    }
    if (qu.equals("content-bytes") || qu.equals("concurrent-requests")) {
      return null;
    }
    return LimitUnit.COST;
  }

  private static boolean isCount(Object v) {
    return v instanceof Long n && n >= 0;
  }

  private static boolean isPositive(Object v) {
    return v instanceof Long n && n > 0;
  }

}
