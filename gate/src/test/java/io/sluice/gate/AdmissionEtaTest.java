package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.LimiterDecision;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When the gate expects an event at its provider by its quota, and whether that misses its deadline. */
class AdmissionEtaTest {
  private static final BucketSpec SPEC = new BucketSpec(2, 1, 10_000_000);

  @Test
  void shouldExpectEachDecisionAtItsQuotasTime() {
    assertEquals(1_000, AdmissionEta.of(new LimiterDecision.Admit(1_000), SPEC, false));
    assertEquals(4_000, AdmissionEta.of(new LimiterDecision.Reserved(4_000), SPEC, false));
    assertEquals(11_000, AdmissionEta.of(new LimiterDecision.Queued(1_000), SPEC, false),
        "charged at its turn, due a horizon later");
    assertEquals(1_000, AdmissionEta.of(new LimiterDecision.Queued(1_000), SPEC, true),
        "quota rules admit at the turn");
    assertEquals(-1, AdmissionEta.of(new LimiterDecision.Unavailable("down"), SPEC, false));
  }

  @Test
  void shouldFindADeadlineUnreachableOnlyWhenTheEtaIsAfterIt() {
    Instant deadline = Instant.ofEpochMilli(5_000);
    assertTrue(AdmissionEta.unreachable(5_001, deadline));
    assertFalse(AdmissionEta.unreachable(5_000, deadline));
    assertFalse(AdmissionEta.unreachable(9_000, null));
    assertFalse(AdmissionEta.unreachable(-1, deadline), "no estimate: no verdict");
  }
}
