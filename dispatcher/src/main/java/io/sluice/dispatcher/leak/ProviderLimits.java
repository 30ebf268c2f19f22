package io.sluice.dispatcher.leak;

import io.sluice.config.ProviderLimit;
import java.util.List;
import java.util.Set;

/**
 * The limits a lane enforces on one claim: exactly one {@link ProviderLimit.Kind#RATE} (the leak
 * that spaces slots) and any calls, cost and concurrency limits. Immutable; a {@link LimitSource}
 * may hand out a different one for the next claim.
 */
public record ProviderLimits(List<ProviderLimit> all, Set<String> learnedOnly) {
  public ProviderLimits {
    all = List.copyOf(all);
    learnedOnly = Set.copyOf(learnedOnly);
    if (all.stream().filter(l -> l.kind() == ProviderLimit.Kind.RATE).count() != 1) {
      throw new IllegalArgumentException("exactly one rate limit, not " + all);
    }
  }

  /** Limits that are all configured (none learned only). */
  public ProviderLimits(List<ProviderLimit> all) {
    this(all, Set.of());
  }

  /**
   * Whether a window or concurrency limit is assumed full after Redis lost its keys
   * ({@link LimitMath}, "Lost data"): a configured one is, since calls may have been granted
   * against it up to the loss. A limit known only from the provider's answers ({@code
   * learnedOnly}, by {@link ProviderLimit#id}) is not: it may be a day long (a hostile or careless
   * answer), holding it full would stop the provider for as long as it lives, and the provider's
   * next answer states again what remains of it, which the learner then applies.
   */
  public boolean holdsAfterLoss(ProviderLimit limit) {
    return !learnedOnly.contains(limit.id());
  }

  /** Only a rate: the leak as it always was. */
  public static ProviderLimits rateOnly(double perSecond) {
    return new ProviderLimits(List.of(ProviderLimit.rate(perSecond)));
  }

  /** Calls per second of the rate limit. */
  public double ratePerSecond() {
    for (ProviderLimit l : all) {
      if (l.kind() == ProviderLimit.Kind.RATE) {
        return l.amount();
      }
    }
    throw new IllegalStateException("no rate limit"); // the constructor requires one
  }

  /**
   * The same limits with the rate at {@code perSecond} (the dispatcher's pace slows an overloaded
   * process's claims): the windows and the concurrency as they are, keyed as they are.
   */
  public ProviderLimits withRate(double perSecond) {
    return new ProviderLimits(all.stream().map(l -> l.kind() == ProviderLimit.Kind.RATE
        ? l.withAmount(perSecond) : l).toList(), learnedOnly);
  }

  /**
   * The most calls a second these limits allow in the long run: the rate, or less if a calls
   * window allows fewer ({@code amount / per}). Cost and concurrency depend on the events and the
   * latency, and are left out.
   */
  public double sustainedCallsPerSecond() {
    double most = ratePerSecond();
    for (ProviderLimit l : all) {
      if (l.kind() == ProviderLimit.Kind.CALLS) {
        most = Math.min(most, l.amount() / (l.per().toNanos() / 1e9));
      }
    }
    return most;
  }

  /** Every limit but the rate, in the configured order (each one Redis key). */
  public List<ProviderLimit> beyondRate() {
    return all.stream().filter(l -> l.kind() != ProviderLimit.Kind.RATE).toList();
  }

  /** Whether a claim needs the multi-limit path (else today's leak alone decides). */
  public boolean hasLimitsBeyondRate() {
    return all.size() > 1;
  }

  /**
   * The smallest {@code margin} of the calls and cost windows ({@link ProviderLimit#margin}), in
   * nanoseconds; {@code Long.MAX_VALUE} when there is no window. A window's log keeps each slot
   * {@code per + margin}, which holds the provider's bound on arrivals only while the delays of
   * calls (arrival less slot) differ by at most the margin: the lane uses no slot later than that
   * ({@link io.sluice.dispatcher.dispatch.lane.ProviderLane}).
   */
  public long windowMarginNanos() {
    long least = Long.MAX_VALUE;
    for (ProviderLimit l : all) {
      if (l.kind() == ProviderLimit.Kind.CALLS || l.kind() == ProviderLimit.Kind.COST) {
        least = Math.min(least, l.margin().toNanos());
      }
    }
    return least;
  }

  /** Whether any limit counts cost (the claim then says what each slot may cost). */
  public boolean countsCost() {
    return has(ProviderLimit.Kind.COST);
  }

  /**
   * The dearest event these limits can ever send: the smallest cost window's amount
   * ({@code Long.MAX_VALUE} when no limit counts cost). A dearer event would wait forever.
   */
  public long largestSendableCost() {
    long least = Long.MAX_VALUE;
    for (ProviderLimit l : all) {
      if (l.kind() == ProviderLimit.Kind.COST) {
        least = Math.min(least, (long) Math.floor(l.amount()));
      }
    }
    return least;
  }

  /** Whether a granted slot holds a lease that must be released when its call ends. */
  public boolean hasConcurrency() {
    return has(ProviderLimit.Kind.CONCURRENCY);
  }

  /*
   * The accessors above loop rather than stream: a lane asks them several times per call, and at
   * a thousand endpoints their streams' allocation was a few percent of the dispatcher's CPU.
   */
  private boolean has(ProviderLimit.Kind kind) {
    for (ProviderLimit l : all) {
      if (l.kind() == kind) {
        return true;
      }
    }
    return false;
  }

  /**
   * This instance's share when instances cannot see each other ({@code onRedisDown: local}):
   * every amount divided by {@code instances}, whole amounts rounded down but at least 1.
   */
  public ProviderLimits dividedAmong(int instances) {
    return divided(instances, true);
  }

  /**
   * {@code onRedisDown: fail_open}: the rate whole (each instance protects the provider only from
   * its own bursts), but every window and the concurrency at this instance's share, as
   * {@link #dividedAmong}: a window is a quota over time, and each instance granting it whole
   * would hand the provider N windows (N days' quota for a daily one).
   */
  public ProviderLimits windowsDividedAmong(int instances) {
    return divided(instances, false);
  }

  private ProviderLimits divided(int instances, boolean rateToo) {
    if (instances <= 1) {
      return this;
    }
    return new ProviderLimits(all.stream().map(l -> l.kind() == ProviderLimit.Kind.RATE
        ? (rateToo ? l.withAmount(l.amount() / instances) : l)
        : l.withAmount(Math.max(1, Math.floor(l.amount() / instances)))).toList(), learnedOnly);
  }
}
