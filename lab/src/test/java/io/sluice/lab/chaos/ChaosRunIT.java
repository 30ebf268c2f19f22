package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The reduced chaos run of CI: the roles as separate JVMs started from this test's class path,
 * a broker process and redis-server; 6 SIGKILLs, one Redis restart, one broker restart, under
 * 900 events in 45 s (about two minutes in all), one tenant paused and one tenant's endpoint dead
 * for a stretch of it. Nothing may be lost, no tenant may be admitted beyond capacity + rate·T, and
 * the paused tenant may not be called while paused. The providers' {@code maxRetryAfter} is 3 s, not the
 * command's 20 s: each provider's four hostile answers come one after the other, each holding it
 * for that long, which at 20 s kept the pipeline from settling for 80 s after the load; 3 s is
 * still longer than the storm's {@code Retry-After: 2}, so the storm runs as in a full run. The duplicate figure is printed, not asserted: with 900 events, the
 * calls in flight at six kills are already a few percent (the full run's figure is the judge).
 * It runs beside {@code BenchQuickIT} (see junit-platform.properties): losing nothing and admitting
 * nothing beyond the bound must hold on a busy machine too.
 */
@Execution(ExecutionMode.CONCURRENT)
class ChaosRunIT {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void nothingIsLostNorOverAdmittedThroughKillsAndRestarts() throws Exception {
    // Surefire's booter jar carries the class path in its manifest; the real list is here.
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    ChaosReport report = ChaosRun.run(
        new ChaosOptions(6, 900, 45, 1, 1, 120, 3, 11, null, classPath), System.out);
    report.print(System.out);

    assertEquals(6, report.totalKills(), "every planned SIGKILL happened");
    assertEquals(1, report.redisRestarts());
    assertEquals(1, report.brokerRestarts());
    assertEquals(900, report.events(), "every event was acknowledged by the broker");
    assertTrue(report.settled(), () -> "settled: " + report.failures());
    assertEquals(0, report.lost(), () -> "lost ids, e.g. " + report.lostIds());
    assertTrue(report.delivered() > 0);
    assertTrue(report.overAdmission().stream().noneMatch(ChaosReport.PairFigure::overAdmitted),
        () -> "over-admission: " + report.failures());
    // Issue 39: a tenant paused during the faults is not called while paused; a dead endpoint's
    // events wait and are delivered once it is mended.
    // The pause's window (13.5-29 s) starts between this short run's restarts (Redis at 23.4 s,
    // the broker at 25.7 s): it must be set, and no call may reach the tenant while it holds.
    assertTrue(report.isolation().get("pausedFromSecond") != null,
        () -> "the pause was not set: " + report.isolation());
    assertEquals(0L, report.isolation().get("callsWhilePaused"), () -> "" + report.isolation());
    assertEquals(List.of(), IsolationFigures.failures(report.isolation()), () -> "isolation: " + report.isolation());
  }
}
