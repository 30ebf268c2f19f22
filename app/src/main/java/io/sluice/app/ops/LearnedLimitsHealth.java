package io.sluice.app.ops;

import io.sluice.config.AnswerBounds;
import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.config.SluiceConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The limits learned from the providers' answers, as a {@code /health} entry
 * ({@code learnedLimits}): for each provider something was learned about, its limits and the pace
 * the leak runs at against the configured rate. Informational: learning never makes an instance
 * unhealthy (a provider announcing low limits is the provider's business, and Sluice follows it).
 *
 * <p>{@code "detail": "api: 20 calls/1s (s), 600 calls/60s (m), 5000 cost/60s (c); paced at 8.30/s
 * of 100.00/s configured"}; {@code "none learned"} when no provider announced anything.
 *
 * <p>The bounds on a provider's answers show beside it once one of them held an answer back
 * ({@link LimitLearner#noteBound}): {@code "; learnedFloor 0.10, maxRetryAfter 300s; held back:
 * retry-after x2 (<the last, with header excerpts of at most 80 characters>)"}; a provider with
 * learning off says {@code "learning off"}.
 */
public final class LearnedLimitsHealth implements HealthCheck {
  private final Supplier<LimitLearner> learners;
  private final Supplier<SluiceConfig> live;

  public LearnedLimitsHealth(LimitLearner learner, SluiceConfig config) {
    this(() -> learner, () -> config);
  }

  /**
   * Following the running dispatcher's learner (a restarted dispatcher has a new one) and
   * {@code live}: the configured rates are those in force, reloads included.
   */
  public LearnedLimitsHealth(Supplier<LimitLearner> learners, Supplier<SluiceConfig> live) {
    this.learners = learners;
    this.live = live;
  }

  @Override
  public String name() {
    return "learnedLimits";
  }

  @Override
  public Result check() {
    LimitLearner learner = learners.get();
    Map<String, List<LearnedLimit>> all = learner.snapshot();
    Map<String, Map<LimitLearner.Bound, LimitLearner.Bounded>> bounded = learner.boundedSoFar();
    SluiceConfig config = live.get();
    Set<String> names = new TreeSet<>(all.keySet());
    names.addAll(bounded.keySet());
    config.providers().forEach((name, p) -> {
      if (!p.answers().learn()) {
        names.add(name);
      }
    });
    if (names.isEmpty()) {
      return Result.reachable("none learned");
    }
    StringJoiner providers = new StringJoiner("; ");
    for (String provider : names) {
      List<LearnedLimit> limits = all.getOrDefault(provider, List.of());
      StringJoiner each = new StringJoiner(", ", provider + ": ", "");
      each.setEmptyValue(provider + ": " + (learner.bounds(provider).learn() ? "none learned"
          : "learning off"));
      for (LearnedLimit l : limits) {
        each.add(l.quota() + " " + l.unit().label() + "/" + seconds(l.windowMillis()) + "s ("
            + LimitLearner.cut(l.name()) + ")");
      }
      String paced = "";
      if (config.providers().containsKey(provider) && learner.bounds(provider).learn()) {
        double configured = config.providers().get(provider).rate().perSecond();
        paced = String.format(Locale.ROOT, "; paced at %.2f/s of %.2f/s configured",
            learner.ratePerSecond(provider, configured), configured);
      }
      providers.add(each + paced + heldBack(learner, provider, bounded.get(provider)));
    }
    return Result.reachable(providers.toString());
  }

  /** The bounds and what they held back, or nothing if they never held anything back. */
  private static String heldBack(LimitLearner learner, String provider,
      Map<LimitLearner.Bound, LimitLearner.Bounded> bounded) {
    if (bounded == null || bounded.isEmpty()) {
      return "";
    }
    AnswerBounds b = learner.bounds(provider);
    StringJoiner out = new StringJoiner(", ", String.format(Locale.ROOT,
        "; learnedFloor %.2f, maxRetryAfter %ss; held back: ", b.learnedFloor(),
        seconds(b.maxRetryAfterMillis())), "");
    new TreeMap<>(bounded).values().forEach(x -> out.add(x.bound().label() + " x"
        + x.count() + " (" + x.detail() + ")"));
    return out.toString();
  }

  private static String seconds(long millis) {
    return millis % 1000 == 0 ? Long.toString(millis / 1000)
        : String.format(Locale.ROOT, "%.3f", millis / 1000.0);
  }
}
