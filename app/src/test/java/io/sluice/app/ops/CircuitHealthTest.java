package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.RedisCircuit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitHealthTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final RedisCircuit circuit = new RedisCircuit("dispatcher", 250, 10_000, 5_000, clock::get, s -> {});
  private final Health health = new Health(List.of(CircuitHealth.of("dispatcher", circuit)), Map.of());

  @Test
  void shouldBeDownWhileTheCircuitIsOpenOrHalfOpenAndUpOnceClosed() {
    assertTrue(health.report().up());
    circuit.tryAcquire().orElseThrow().failed(new IllegalStateException("connection refused"));
    HealthReport open = health.report();
    assertEquals(List.of("dispatcherRedisCircuit"), open.down());
    assertTrue(open.toJson().contains("OPEN") && open.toJson().contains("connection refused"), open.toJson());

    clock.addAndGet(250);
    RedisCircuit.Permit probe = circuit.tryAcquire().orElseThrow();
    assertFalse(health.report().up(), "half-open is not up yet");
    probe.succeeded();
    assertTrue(health.report().up());
  }

  @Test
  void shouldNotStayUpOrStuckWhenAProbeIsNeverReported() {
    circuit.tryAcquire().orElseThrow().failed(new IllegalStateException("refused"));
    clock.addAndGet(250);
    circuit.tryAcquire().orElseThrow(); // lost
    clock.addAndGet(5_000);
    HealthReport report = health.report();
    assertFalse(report.up());
    assertTrue(report.toJson().contains("not answered"), report.toJson());
  }
}
