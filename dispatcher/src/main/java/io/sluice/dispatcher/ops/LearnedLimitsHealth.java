package io.sluice.dispatcher.ops;

import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.schemas.config.SluiceConfig;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * The limits learned from the providers' answers, as a {@code /health} entry
 * ({@code learnedLimits}): for each provider something was learned about, its limits and the pace
 * the leak runs at against the configured rate. Informational: learning never makes an instance
 * unhealthy (a provider announcing low limits is the provider's business, and Sluice follows it).
 *
 * <p>{@code "detail": "api: 20 calls/1s (s), 600 calls/60s (m), 5000 cost/60s (c); paced at 8.30/s
 * of 100.00/s configured"}; {@code "none learned"} when no provider announced anything.
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
    if (all.isEmpty()) {
      return Result.reachable("none learned");
    }
    StringJoiner providers = new StringJoiner("; ");
    SluiceConfig config = live.get();
    all.forEach((provider, limits) -> {
      StringJoiner each = new StringJoiner(", ", provider + ": ", "");
      for (LearnedLimit l : limits) {
        each.add(l.quota() + " " + l.unit().label() + "/" + seconds(l.windowMillis()) + "s ("
            + l.name() + ")");
      }
      String paced = "";
      if (config.providers().containsKey(provider)) {
        double configured = config.providers().get(provider).rate().perSecond();
        paced = String.format(Locale.ROOT, "; paced at %.2f/s of %.2f/s configured",
            learner.ratePerSecond(provider, configured), configured);
      }
      providers.add(each + paced);
    });
    return Result.reachable(providers.toString());
  }

  private static String seconds(long millis) {
    return millis % 1000 == 0 ? Long.toString(millis / 1000)
        : String.format(Locale.ROOT, "%.3f", millis / 1000.0);
  }
}
