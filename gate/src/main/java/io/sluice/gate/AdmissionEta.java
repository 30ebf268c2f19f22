package io.sluice.gate;

import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.LimiterDecision;
import java.time.Instant;

/**
 * When the gate expects an event at its provider, from its quota's answer (epoch ms on the
 * bucket's clock), and whether its deadline can still be met. Pure.
 *
 * <ul>
 *   <li>admitted: at its admission;</li>
 *   <li>reserved (charged ahead): at its not-before, when its last unit falls due;</li>
 *   <li>queued (beyond the horizon, a ticket): its ticket's turn is when its units fit the
 *       horizon again, and it is charged then, due a horizon later; an event of several quota
 *       rules ({@code multi}) is admitted at its turn, so then.</li>
 * </ul>
 * The quota's time only: the provider's pace and the events queued before it at the dispatcher
 * come on top. So an event found late by it is late whatever the provider does, and one found in
 * time may still be late.
 *
 * <p>Public for {@code sluice simulate}, which decides deadlines by this same rule.
 */
public final class AdmissionEta {
  private AdmissionEta() {}

  /**
   * @return the expected time, or -1 for a decision that says none (Redis unavailable)
   */
  public static long of(LimiterDecision decision, BucketSpec spec, boolean multi) {
    if (decision instanceof LimiterDecision.Admit a) {
      return a.atMillis();
    }
    if (decision instanceof LimiterDecision.Reserved r) {
      return r.notBeforeMillis();
    }
    if (decision instanceof LimiterDecision.Queued q) {
      return multi || spec == null ? q.notBeforeMillis()
          : q.notBeforeMillis() + spec.horizonMicros() / 1000;
    }
    return -1;
  }

  /** Whether an event expected at {@code etaMillis} misses {@code deadline} (null: none). */
  public static boolean unreachable(long etaMillis, Instant deadline) {
    return deadline != null && etaMillis >= 0 && etaMillis > deadline.toEpochMilli();
  }
}
