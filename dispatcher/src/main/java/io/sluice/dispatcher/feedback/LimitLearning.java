package io.sluice.dispatcher.feedback;

import io.sluice.config.AnswerBounds;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.DoubleSupplier;

/**
 * What one answer teaches about a provider's limits. Pure: time and randomness are passed in;
 * the caller keeps the state ({@link LimitLearner} per provider, shared through Redis).
 *
 * <h2>Policies become limits</h2>
 * An announced policy {@code q per w} ({@code RateLimit-Policy}) is learned as a limit of that
 * window, under the policy's name; a later answer with the same name replaces it (a provider that
 * raises a limit is followed up as well as down; the same quota stated with a longer window keeps
 * the longer one, the conservative reading). The {@code X-RateLimit-*} families state a quota
 * and a reset but no window, so their window is estimated as the longest reset seen for that
 * family, in whole seconds: right after a call, the time until a sliding (or token) quota is whole
 * again is its window, and a fixed window's reset is never longer than the window. A window
 * estimated short is corrected by the next longer reset; meanwhile the holds below keep the
 * calls within what the provider says remains.
 *
 * <h2>What remains becomes a hold</h2>
 * An answer saying that less than one call ({@code r = 0}), or less than the cost of the call just
 * made, remains until a reset {@code t} holds the provider for {@code t}, plus a jitter drawn by
 * each instance (uniform up to a tenth of {@code t}, at most a second), so instances that each saw
 * the same reset do not all resume at its instant. {@code Retry-After} is not a hold here: a 429 or
 * 503 already pauses the provider for it (the first in the order of precedence).
 *
 * <h2>Bounds: what one answer can do</h2>
 * <ul>
 *   <li>a hold lasts at most {@code maxHoldMillis} (the provider's {@code maxRetryAfter}, 5 min by
 *       default), jitter included: a reset a day away holds five minutes, then the next answer
 *       says again what remains;</li>
 *   <li>a policy of quota 0 ({@code "x";q=0;w=2678400}) is not a limit (it would pace at nothing
 *       for as long as it is kept) but a hold of its window, bounded as above; a limit learned
 *       under the same name before is dropped;</li>
 *   <li>a provider keeps at most {@link #MAX_LIMITS} learned limits; more names (a provider
 *       inventing one per answer) push out the ones stated longest ago;</li>
 *   <li>the window kept for a quota grows only for as long as the longer statement lives: the
 *       longer window is kept with the expiry it was stated with, not renewed by shorter
 *       statements, so one far reset widens an {@code X-RateLimit} estimate for at most
 *       {@link #ttlMillis} of it;</li>
 *   <li>an answer whose {@code RateLimit-Policy} field lists the provider's policies drops at once
 *       every policy learned from that field before that the list no longer names: the draft
 *       defines the field as the quota policies in force, so a policy left out is no longer one.
 *       A hostile policy ({@code "daily";q=1;w=86400}) thus lives until the provider's next
 *       answer with the field, not for {@link #MAX_TTL_MILLIS}. Limits of the {@code X-RateLimit}
 *       families (names {@code x-ratelimit*}, which the IETF reader refuses as policy names) are
 *       not dropped by it: they fade as below;</li>
 *   <li>the floor under learned limits ({@code learnedFloor}) is the limit source's
 *       ({@link LearningLimitSource}), not this class's: what is learned is kept as stated.</li>
 * </ul>
 *
 * <h2>Fading</h2>
 * A learned limit lives {@link #ttlMillis} after the last answer that stated it: twice its window,
 * at least {@link #MIN_TTL_MILLIS} and at most {@link #MAX_TTL_MILLIS}. Long enough that a
 * provider announcing its limits on every answer keeps them, short enough that limits a provider
 * stopped announcing (or raised, on a path Sluice no longer calls) fade within the hour, on every
 * instance and in Redis.
 */
final class LimitLearning {
  /** The least a learned limit lives after it was last stated. */
  public static final long MIN_TTL_MILLIS = 600_000;
  /** The most a learned limit lives after it was last stated (an hour), whatever its window. */
  public static final long MAX_TTL_MILLIS = 3_600_000;
  /** The most learned limits one provider keeps. */
  public static final int MAX_LIMITS = 8;

  private LimitLearning() {}

  /**
   * What one answer changes: the limits now learned (by name), a hold, if any, the hold the
   * answer asked for when that was longer (empty: nothing was clamped), and the names of the
   * policies dropped because the answer's {@code RateLimit-Policy} no longer lists them.
   */
  public record Step(Map<String, LearnedLimit> limits, OptionalLong holdMillis,
      OptionalLong askedHoldMillis, Set<String> unlisted) {
    public Step {
      limits = Map.copyOf(limits);
      unlisted = Set.copyOf(unlisted);
    }
  }

  /** How long a limit of this window lives after it was last stated. */
  public static long ttlMillis(long windowMillis) {
    return Math.min(MAX_TTL_MILLIS, Math.max(MIN_TTL_MILLIS, 2 * windowMillis));
  }

  /** {@link #learn(Map, ProviderAnnouncement, long, long, DoubleSupplier, long)} with the default hold bound. */
  public static Step learn(Map<String, LearnedLimit> known, ProviderAnnouncement answer,
      long nowMillis, long costOfCall, DoubleSupplier uniform01) {
    return learn(known, answer, nowMillis, costOfCall, uniform01,
        AnswerBounds.DEFAULT.maxRetryAfterMillis());
  }

  /**
   * @param known         the limits learned so far, by name (expired ones are dropped here)
   * @param costOfCall    the cost of the call whose answer this is: less than that remaining holds
   * @param maxHoldMillis the longest hold returned (the provider's {@code maxRetryAfter})
   */
  public static Step learn(Map<String, LearnedLimit> known, ProviderAnnouncement answer,
      long nowMillis, long costOfCall, DoubleSupplier uniform01, long maxHoldMillis) {
    Map<String, LearnedLimit> limits = new HashMap<>();
    known.forEach((name, l) -> {
      if (l.expiresAtMillis() > nowMillis) {
        limits.put(name, l);
      }
    });
    Set<String> unlisted = new TreeSet<>();
    answer.listedPolicies().ifPresent(listed -> {
      for (String name : limits.keySet()) {
        if (!RateLimitHeaders.isXName(name) && !listed.contains(name)) {
          unlisted.add(name);
        }
      }
      limits.keySet().removeAll(unlisted);
    });
    long hold = -1;
    for (AnnouncedPolicy p : answer.policies()) {
      if (p.quota() == 0) {
        // "Nothing in this window": a hold, not a limit to pace by.
        limits.remove(p.name());
        hold = Math.max(hold, p.windowMillis() + jitter(p.windowMillis(), uniform01));
        continue;
      }
      limits.put(p.name(), stated(limits.get(p.name()), p.name(), p.unit(), p.quota(),
          p.windowMillis(), nowMillis));
    }
    for (AnnouncedRemaining r : answer.remaining()) {
      if (r.limit().isPresent() && r.resetMillis().isPresent() && r.limit().getAsLong() > 0) {
        limits.put(r.name(), stated(limits.get(r.name()), r.name(), r.unit(),
            r.limit().getAsLong(), Math.max(1000, ceilToSecond(r.resetMillis().getAsLong())),
            nowMillis));
      }
      long needed = r.unit() == LimitUnit.CALLS ? 1 : Math.max(1, costOfCall);
      if (r.remaining() < needed && r.resetMillis().isPresent()) {
        long t = r.resetMillis().getAsLong();
        hold = Math.max(hold, t + jitter(t, uniform01));
      }
    }
    if (hold < 0) {
      return new Step(fewest(limits), OptionalLong.empty(), OptionalLong.empty(), unlisted);
    }
    long bounded = Math.min(hold, Math.max(0, maxHoldMillis));
    return new Step(fewest(limits), OptionalLong.of(bounded),
        bounded < hold ? OptionalLong.of(hold) : OptionalLong.empty(), unlisted);
  }

  /** Uniform up to a tenth of {@code t}, at most a second. */
  private static long jitter(long t, DoubleSupplier uniform01) {
    return (long) Math.floor(uniform01.getAsDouble() * Math.min(1000, t / 10));
  }

  /**
   * A quota just stated with {@code window}: the longer window already learned for the same quota
   * is kept, with its own expiry (never renewed by a shorter statement); else the statement, for
   * {@link #ttlMillis} from now.
   */
  private static LearnedLimit stated(LearnedLimit before, String name, LimitUnit unit, long quota,
      long window, long nowMillis) {
    long kept = longestWindow(before, unit, quota, window);
    if (kept > window) {
      return before;
    }
    return new LearnedLimit(name, unit, quota, window, nowMillis + ttlMillis(window));
  }

  /** At most {@link #MAX_LIMITS}: those stated most recently (latest expiry) are kept. */
  static Map<String, LearnedLimit> fewest(Map<String, LearnedLimit> limits) {
    if (limits.size() <= MAX_LIMITS) {
      return limits;
    }
    Map<String, LearnedLimit> kept = new HashMap<>();
    limits.values().stream()
        .sorted(Comparator.comparingLong(LearnedLimit::expiresAtMillis).reversed()
            .thenComparing(LearnedLimit::name))
        .limit(MAX_LIMITS)
        .forEach(l -> kept.put(l.name(), l));
    return kept;
  }

  /**
   * The window to keep for a quota just stated with {@code window}: the longer one when the same
   * quota of the same unit is already learned (the conservative reading of two statements; it is
   * how an X-RateLimit window estimate only grows, across instances too), else the one stated.
   */
  public static long longestWindow(LearnedLimit before, LimitUnit unit, long quota, long window) {
    if (before != null && before.unit() == unit && before.quota() == quota) {
      return Math.max(window, before.windowMillis());
    }
    return window;
  }

  private static long ceilToSecond(long millis) {
    return (millis + 999) / 1000 * 1000;
  }
}
