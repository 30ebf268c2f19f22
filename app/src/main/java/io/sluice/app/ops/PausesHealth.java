package io.sluice.app.ops;

import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * The operator's pauses as this dispatcher honours them, as a {@code /health} entry
 * ({@code pauses}). Informational: a pause never makes an instance unready (it is an operator's
 * decision, not a fault; a load balancer must not take the instance away for it).
 *
 * <p>{@code "detail": "provider payments by ana@ops-1 at 2026-11-26T16:20:00Z (partner 500s);
 * held: payments 120"}, at most {@value #SHOWN} pauses (then {@code "and N more"}); {@code "none"}
 * when nothing is paused. Every text in it was cleaned and bounded when read
 * ({@link io.sluice.dispatcher.pause.OperatorText}).
 */
public final class PausesHealth implements HealthCheck {
  static final int SHOWN = 20;

  private final Supplier<PauseRules> rules;
  private final Supplier<Map<String, Integer>> held;

  /**
   * @param rules the pauses in force, as the dispatcher last read them
   * @param held  the events held by a pause, per provider
   */
  public PausesHealth(Supplier<PauseRules> rules, Supplier<Map<String, Integer>> held) {
    this.rules = rules;
    this.held = held;
  }

  @Override
  public String name() {
    return "pauses";
  }

  @Override
  public Result check() {
    List<Pause> all = rules.get().all();
    Map<String, Integer> counts = held.get();
    if (all.isEmpty() && counts.isEmpty()) {
      return Result.reachable("none");
    }
    StringJoiner out = new StringJoiner("; ");
    all.stream().limit(SHOWN).forEach(p -> out.add(describe(p)));
    if (all.size() > SHOWN) {
      out.add("and " + (all.size() - SHOWN) + " more");
    }
    if (!counts.isEmpty()) {
      StringJoiner h = new StringJoiner(", ", "held: ", "");
      counts.forEach((provider, n) -> h.add(provider + " " + n));
      out.add(h.toString());
    }
    return Result.reachable(out.toString());
  }

  /** One pause for people: {@code provider P by WHO at WHEN (WHY)}. */
  public static String describe(Pause p) {
    return p.scope() + " by " + p.by() + " at " + p.at()
        + (p.reason().isEmpty() ? "" : " (" + p.reason() + ")");
  }
}
