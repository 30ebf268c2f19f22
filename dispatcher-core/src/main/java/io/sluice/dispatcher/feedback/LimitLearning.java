package io.sluice.dispatcher.feedback;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
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
 * <h2>Fading</h2>
 * A learned limit lives {@link #ttlMillis} after the last answer that stated it: long enough that a
 * provider announcing its limits on every answer keeps them, short enough that limits a provider
 * stopped announcing (or raised, on a path Sluice no longer calls) do not bind for ever.
 */
public final class LimitLearning {
  /** The least a learned limit lives after it was last stated. */
  public static final long MIN_TTL_MILLIS = 600_000;

  private LimitLearning() {}

  /** What one answer changes: the limits now learned (by name), and a hold, if any. */
  public record Step(Map<String, LearnedLimit> limits, OptionalLong holdMillis) {
    public Step {
      limits = Map.copyOf(limits);
    }
  }

  /** How long a limit of this window lives after it was last stated. */
  public static long ttlMillis(long windowMillis) {
    return Math.max(MIN_TTL_MILLIS, 2 * windowMillis);
  }

  /**
   * @param known     the limits learned so far, by name (expired ones are dropped here)
   * @param costOfCall the cost of the call whose answer this is: less than that remaining holds
   */
  public static Step learn(Map<String, LearnedLimit> known, ProviderAnnouncement answer,
      long nowMillis, long costOfCall, DoubleSupplier uniform01) {
    Map<String, LearnedLimit> limits = new HashMap<>();
    known.forEach((name, l) -> {
      if (l.expiresAtMillis() > nowMillis) {
        limits.put(name, l);
      }
    });
    for (AnnouncedPolicy p : answer.policies()) {
      long window = longestWindow(limits.get(p.name()), p.unit(), p.quota(), p.windowMillis());
      limits.put(p.name(), new LearnedLimit(p.name(), p.unit(), p.quota(), window,
          nowMillis + ttlMillis(window)));
    }
    long hold = -1;
    for (AnnouncedRemaining r : answer.remaining()) {
      if (r.limit().isPresent() && r.resetMillis().isPresent()) {
        long window = longestWindow(limits.get(r.name()), r.unit(), r.limit().getAsLong(),
            Math.max(1000, ceilToSecond(r.resetMillis().getAsLong())));
        limits.put(r.name(), new LearnedLimit(r.name(), r.unit(), r.limit().getAsLong(), window,
            nowMillis + ttlMillis(window)));
      }
      long needed = r.unit() == LimitUnit.CALLS ? 1 : Math.max(1, costOfCall);
      if (r.remaining() < needed && r.resetMillis().isPresent()) {
        long t = r.resetMillis().getAsLong();
        long jitter = (long) Math.floor(uniform01.getAsDouble() * Math.min(1000, t / 10));
        hold = Math.max(hold, t + jitter);
      }
    }
    return new Step(limits, hold < 0 ? OptionalLong.empty() : OptionalLong.of(hold));
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
