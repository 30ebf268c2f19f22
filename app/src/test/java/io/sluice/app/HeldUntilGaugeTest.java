package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.ops.MetricNames;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice_dispatch_held_until_seconds}: when the provider said to wait until, so that
 * {@code SluiceDispatchStalled} can tell a legitimate wait from a stall.
 */
class HeldUntilGaugeTest {
  private final AtomicLong now = new AtomicLong(1_000_000L);
  private final MetricRegistry registry = new MetricRegistry();
  private final SluiceMetrics metrics = new SluiceMetrics(registry, now::get);
  private final String gauge =
      MetricNames.name("sluice_dispatch_held_until_seconds", "provider", "api");

  private Object heldUntil() {
    return registry.getGauges().get(gauge).getValue();
  }

  @Test
  @DisplayName("absent until the provider first asks for a wait")
  void absentUntilTheFirstWait() {
    metrics.delivered("api", "pro");
    assertNull(registry.getGauges().get(gauge));
  }

  @Test
  @DisplayName("a Retry-After and a learned hold both set the end of the wait, in epoch seconds")
  void retryAfterAndHoldSetTheEnd() {
    metrics.throttled("api", 1_800_000);
    assertEquals(2_800.0, heldUntil(), "1,000 s now plus a 30-minute Retry-After");

    now.addAndGet(2_000_000);
    metrics.held("api", 60_000);
    assertEquals(3_060.0, heldUntil(), "a hold its limit headers asked for (a spent window)");
  }

  @Test
  @DisplayName("a shorter wait asked later does not cut a longer one short")
  void theLatestEndStands() {
    metrics.throttled("api", 1_800_000);
    metrics.throttled("api", 1_000);
    assertEquals(2_800.0, heldUntil());
  }
}
