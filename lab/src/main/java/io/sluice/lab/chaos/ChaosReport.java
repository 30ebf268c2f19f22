package io.sluice.lab.chaos;

import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The figures of one chaos run, written as JSON and printed as a table. {@link #failures()} lists
 * what makes the run fail (exit code 1): a lost event or an over-admitted (provider, tenant).
 * Duplicates, gaps and 429s are reported, not judged. A lost id says where it was last seen
 * ({@link LostTrail}): {@code lostLastSeen} for the ids of {@code lostIds}, every lost id counted
 * by partition in {@code lostLastSeenByPlace}, and {@code heldBackPartitions} names each
 * partition an open transaction holds back from read_committed consumers at the end;
 * {@code hangingTransactionsAborted} counts the roles' aborts of hanging transactions.
 * {@code longGaps} lists every gap longer than 10 s without a call (all providers together) with
 * the events waiting through it and what they waited for ({@link GapReasons}). {@code isolation}
 * says what the paused tenant and the dead endpoint got ({@link IsolationFigures});
 * {@code duplicateSettlements} counts settlements written twice, apart from calls made twice
 * ({@link SettlementCopies}).
 */
public record ChaosReport(
    Map<String, Object> options,
    long events,
    long produceFailures,
    long producedTwice,
    Map<String, Integer> kills,
    int roleRestarts,
    int unexpectedExits,
    int redisRestarts,
    int brokerRestarts,
    boolean settled,
    long settleSeconds,
    long inboundUniqueIds,
    long delivered,
    long deadLettered,
    Map<String, Long> deadByReason,
    long lost,
    List<String> lostIds,
    Map<String, String> lostLastSeen,
    Map<String, Long> lostLastSeenByPlace,
    List<String> heldBackPartitions,
    long hangingTransactionsAborted,
    long providerCalls,
    long duplicates,
    double duplicatePercent,
    int maxDeliveriesOfOneId,
    Map<String, Long> duplicatesByCause,
    Map<String, Long> duplicatesByPrecedingFault,
    long longestGapMillis,
    double longestGapAtSecond,
    Map<String, Long> longestGapMillisByProvider,
    List<GapReasons.GapFigure> longGaps,
    Map<String, Long> tooManyOutsideStormByProvider,
    long stormAnswers,
    String overAdmissionMeasuredFrom,
    List<PairFigure> overAdmission,
    List<String> faults,
    Map<String, Object> isolation,
    Map<String, Object> duplicateSettlements,
    List<String> failures) {

  /**
   * Over-admission of one (provider, tenant): {@code worstExcess} is the largest admitted cost
   * beyond the bound in any window (≤ 0: within it), over {@code windowMillis} from
   * {@code windowFromSecond} (seconds since the load started).
   */
  public record PairFigure(String provider, String policy, String tenant, long admissions,
      double capacity, double refillPerSecond, double worstExcess, double windowFromSecond,
      long windowMillis, int windowCount, boolean overAdmitted) {}

  public int kills(String role) {
    return kills.getOrDefault(role, 0);
  }

  public int totalKills() {
    return kills.values().stream().mapToInt(Integer::intValue).sum();
  }

  static List<String> judge(long lost, List<PairFigure> pairs, boolean settled) {
    return judge(lost, pairs, settled, List.of());
  }

  /** @param idle the long gaps after the faults with events waiting for no visible reason */
  static List<String> judge(long lost, List<PairFigure> pairs, boolean settled,
      List<GapReasons.GapFigure> idle) {
    List<String> failures = new ArrayList<>();
    for (GapReasons.GapFigure g : idle) {
      failures.add(String.format("a provider idle %.1f s from %.1f s after the faults while %d "
          + "events waited with no visible reason %s", g.seconds(), g.fromSecond(), g.waiting(),
          g.waitingFor()));
    }
    if (lost > 0) {
      failures.add(lost + " events lost (neither delivered nor dead-lettered)");
    }
    for (PairFigure p : pairs) {
      if (p.overAdmitted()) {
        failures.add(String.format("over-admission %s/%s: %.1f beyond capacity + rate*T",
            p.provider(), p.tenant(), p.worstExcess()));
      }
    }
    if (!settled) {
      failures.add("the pipeline did not settle within the bound");
    }
    return failures;
  }

  public void writeJson(Path file) throws IOException {
    Files.write(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(this));
  }

  public void print(PrintStream out) {
    out.println();
    out.println("chaos run");
    row(out, "events produced (acknowledged)", events + (produceFailures > 0
        ? " (" + produceFailures + " produce failures)" : "")
        + (producedTwice > 0 ? ", " + producedTwice + " ids written twice by the producer" : ""));
    row(out, "SIGKILLs", totalKills() + " " + kills);
    row(out, "restarts", roleRestarts + " roles after a kill, " + unexpectedExits
        + " roles revived after exiting, redis " + redisRestarts + ", broker " + brokerRestarts);
    row(out, "settled", settled + " (" + settleSeconds + " s after the load)");
    row(out, "inbound ids / delivered / dead", inboundUniqueIds + " / " + delivered + " / "
        + deadLettered + " " + deadByReason);
    row(out, "LOST", Long.toString(lost));
    lostLastSeenByPlace.forEach((place, n) -> row(out, "  last seen in " + place,
        Long.toString(n)));
    lostLastSeen.forEach((id, place) -> row(out, "  " + id, place));
    heldBackPartitions.forEach(p -> row(out, "held back (open transaction)", p));
    row(out, "hanging transactions aborted", Long.toString(hangingTransactionsAborted));
    row(out, "provider calls", Long.toString(providerCalls));
    row(out, "duplicates (2xx beyond first)", String.format("%d (%.2f%% of events, max %d for "
        + "one id)", duplicates, duplicatePercent, maxDeliveriesOfOneId));
    duplicatesByCause.forEach((cause, n) -> row(out, "  " + cause, Long.toString(n)));
    row(out, "duplicates after each fault", duplicatesByPrecedingFault.toString());
    row(out, "longest gap in calls", String.format("%.1f s at %.0f s %s", longestGapMillis / 1000.0,
        longestGapAtSecond, longestGapMillisByProvider));
    for (GapReasons.GapFigure g : longGaps) {
      row(out, String.format("  gap %.1f s at %.0f s", g.seconds(), g.fromSecond()),
          g.waiting() + " events waiting" + (g.faultsDuring().isEmpty() ? ""
              : " (during: " + String.join(", ", g.faultsDuring()) + ")"));
      g.waitingFor().forEach((why, n) -> row(out, "    " + n + " waiting for", why));
    }
    row(out, "429s outside the storm", tooManyOutsideStormByProvider + " (storm answers "
        + stormAnswers + ")");
    out.println("over-admission, from " + overAdmissionMeasuredFrom + ":");
    out.printf("  %-9s %-12s %-7s %6s %6s %6s %9s %s%n", "provider", "policy", "tenant",
        "admits", "cap", "rate", "excess", "worst window");
    for (PairFigure p : overAdmission) {
      out.printf("  %-9s %-12s %-7s %6d %6.0f %6.1f %9.2f %d in %d ms at %.0f s%s%n",
          p.provider(), p.policy(), p.tenant(), p.admissions(), p.capacity(),
          p.refillPerSecond(), p.worstExcess(), p.windowCount(), p.windowMillis(),
          p.windowFromSecond(), p.overAdmitted() ? "  OVER" : "");
    }
    row(out, "isolation", isolation.toString());
    row(out, "settlements written twice", duplicateSettlements.get("identicalCopies")
        + " identical copies, " + duplicateSettlements.get("extraEndings") + " extra endings (of "
        + duplicateSettlements.get("settlements") + " settlements)");
    out.println(failures.isEmpty() ? "RESULT: ok" : "RESULT: FAILED " + failures);
  }

  private static void row(PrintStream out, String name, String value) {
    out.printf("  %-32s %s%n", name, value);
  }
}
