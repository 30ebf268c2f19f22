package io.sluice.dispatcher.feedback;

import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.config.ProviderLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A provider's limits as the lane enforces them per claim: the configured ones, lowered to what
 * the provider announced ({@link LimitLearner}). Never above the configured ones.
 *
 * <ul>
 *   <li>the rate: the configured rate lowered to the pace of every learned limit
 *       ({@link LearnedRate}), so the calls are spread evenly rather than spent as each window
 *       opens;</li>
 *   <li>each learned limit {@code q per w}: the configured calls or cost limit of the same window
 *       (sliding or fixed) lowered to {@code q}, or, when none is configured, a sliding window of
 *       {@code q per w} added (sliding is the strictest reading of a window whose alignment the
 *       provider did not state; it holds a fixed window too). Its Redis key is named by the window
 *       ({@link ProviderLimit#id()}), not the amount, so a later, different quota keeps the record
 *       of past calls.</li>
 * </ul>
 *
 * <p><b>The floor.</b> Learned limits lower the configured ones by at most the provider's
 * {@code learnedFloor} ({@link io.sluice.config.AnswerBounds}, 0.1 by default): the rate
 * never below {@code floor * rate}, a configured window's amount never below
 * {@code ceil(floor * amount)}, and a learned window with no configured counterpart never below
 * {@code ceil(floor * rate * w)} (a tenth of what the configured rate could send in it). So
 * {@code "day";q=1;w=86400} at 20/s configured paces at 2/s, not one call a day. Each time the
 * floor decides, the learner counts and shows it ({@link LimitLearner.Bound#FLOOR}).
 *
 * Cheap: it reads the learner's local state; the learner refreshes it from Redis in the background,
 * at most once a second, whether or not this instance has learned anything itself.
 */
public final class LearningLimitSource implements LimitSource {
  private final String provider;
  private final LimitSource configured;
  private final LimitLearner learner;
  /** How often what the other instances learned is read, at most. */
  private final long refreshMillis;

  public LearningLimitSource(String provider, LimitSource configured, LimitLearner learner) {
    this(provider, configured, learner, LimitLearner.REFRESH_MILLIS);
  }

  /**
   * @param refreshMillis how often what the other instances learned is read, at most
   *                      ({@link LimitLearner#ENDPOINT_REFRESH_MILLIS} for a tenant's endpoint)
   */
  public LearningLimitSource(String provider, LimitSource configured, LimitLearner learner,
      long refreshMillis) {
    this.provider = provider;
    this.configured = configured;
    this.learner = learner;
    this.refreshMillis = refreshMillis;
  }

  /**
   * The last answer with the inputs it was made from. The lane asks before every claim, and the
   * inputs change only when the configuration is reloaded or the provider announces something new,
   * so the answer is rebuilt (and its limits validated again) only then. Immutable, published
   * through a volatile field: a racing thread at worst rebuilds an equal answer.
   */
  private record Lowered(ProviderLimits base, List<LearnedLimit> learned, double rate,
      ProviderLimits limits) {}

  private volatile Lowered last;

  @Override
  public ProviderLimits current() {
    ProviderLimits base = configured.current();
    // What other instances learned counts even when this one has learned nothing itself.
    learner.refreshIfDue(provider, refreshMillis);
    List<LearnedLimit> learned = learner.current(provider);
    if (learned.isEmpty()) {
      return base;
    }
    double floor = learner.bounds(provider).learnedFloor();
    double unfloored = LearnedRate.perSecond(base.ratePerSecond(), learned,
        learner.typicalCost(provider));
    double rate = Math.max(floor * base.ratePerSecond(), unfloored);
    Lowered cached = last;
    if (cached != null && cached.rate() == rate && cached.base().equals(base)
        && cached.learned().equals(learned)) {
      return cached.limits();
    }
    if (unfloored < rate) {
      learner.noteBound(provider, LimitLearner.Bound.FLOOR, String.format(Locale.ROOT,
          "learned limits would pace at %.4f/s; paced at %.2f/s, learnedFloor %.2f of %.2f/s "
              + "configured", unfloored, rate, floor, base.ratePerSecond()));
    }
    ProviderLimits limits = lowered(base, learned, rate, floor);
    last = new Lowered(base, List.copyOf(learned), rate, limits);
    return limits;
  }

  /** {@code base} lowered to {@code learned}, paced at {@code rate}, no window below {@code floor} (pure). */
  static ProviderLimits lowered(ProviderLimits base, List<LearnedLimit> learned, double rate,
      double floor) {
    List<ProviderLimit> out = new ArrayList<>(paced(base, rate).all());
    Set<String> learnedOnly = new HashSet<>(base.learnedOnly());
    for (LearnedLimit l : learned) {
      ProviderLimit.Kind kind = l.unit() == LimitUnit.CALLS ? ProviderLimit.Kind.CALLS
          : ProviderLimit.Kind.COST;
      Duration per = Duration.ofMillis(l.windowMillis());
      boolean matched = false;
      for (int i = 0; i < out.size(); i++) {
        ProviderLimit c = out.get(i);
        if (c.kind() == kind && per.equals(c.per())) {
          matched = true;
          long least = Math.max(1, (long) Math.ceil(floor * c.amount()));
          if (l.quota() < c.amount()) {
            out.set(i, c.withAmount(Math.min(c.amount(), Math.max(least, l.quota()))));
          }
        }
      }
      long least = (long) Math.ceil(floor * base.ratePerSecond() * l.windowMillis() / 1000.0);
      if (!matched && l.quota() >= 1) {
        ProviderLimit only = new ProviderLimit(kind, Math.max(l.quota(), least), per,
            ProviderLimit.Window.SLIDING, null);
        out.add(only);
        learnedOnly.add(only.id());
      }
    }
    return new ProviderLimits(out, learnedOnly);
  }

  /** {@code limits} with the rate lowered to {@code rate} (never raised). */
  static ProviderLimits paced(ProviderLimits limits, double rate) {
    if (rate >= limits.ratePerSecond()) {
      return limits;
    }
    List<ProviderLimit> out = new ArrayList<>();
    for (ProviderLimit l : limits.all()) {
      out.add(l.kind() == ProviderLimit.Kind.RATE ? l.withAmount(rate) : l);
    }
    return new ProviderLimits(out);
  }
}
