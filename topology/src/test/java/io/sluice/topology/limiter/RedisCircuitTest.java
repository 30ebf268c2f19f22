package io.sluice.topology.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisCircuitTest {
  private final List<RedisCircuit.State> transitions = new ArrayList<>();
  private final RedisCircuit circuit = new RedisCircuit(100, 400, transitions::add);

  @Test
  void shouldOpenOnAFailureAndLetOneProbeThroughAfterTheBackoff() {
    assertTrue(circuit.allow(0));
    circuit.onFailure(0);
    assertFalse(circuit.allow(50), "open: refused until the backoff passes");
    assertTrue(circuit.allow(100), "one probe");
    assertFalse(circuit.allow(101), "only one probe at a time");
    circuit.onSuccess();
    assertTrue(circuit.allow(102));
    assertEquals(List.of(RedisCircuit.State.OPEN, RedisCircuit.State.HALF_OPEN, RedisCircuit.State.CLOSED), transitions);
  }

  @Test
  void shouldDoubleTheBackoffAfterAFailedProbeUpToTheMaximum() {
    circuit.onFailure(0);
    assertTrue(circuit.allow(100));
    circuit.onFailure(100); // backoff 200
    assertFalse(circuit.allow(299));
    assertTrue(circuit.allow(300));
    circuit.onFailure(300); // 400
    assertTrue(circuit.allow(700));
    circuit.onFailure(700); // capped at 400
    assertFalse(circuit.allow(1099));
    assertTrue(circuit.allow(1100));
  }

  @Test
  void shouldReportEachTransitionOnceNotOncePerCall() {
    circuit.onFailure(0);
    circuit.onFailure(1);
    circuit.allow(2);
    circuit.allow(3);
    assertEquals(List.of(RedisCircuit.State.OPEN), transitions);
  }
}
