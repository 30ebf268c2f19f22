package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.validation.ValidationResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SyntheticTrafficTest {
  @Test
  @DisplayName("rate=1000 over 10 s: 10,000 valid events one a millisecond, tenant i toward provider i mod 2")
  void shouldSpaceEventsEvenlyTowardEachTenantsProvider() {
    SyntheticTraffic traffic = new SyntheticTraffic(SyntheticTraffic.Spec.parse("rate=1000,tenants=10,span=PT10S"),
        List.of("a", "b"));
    List<Long> times = new ArrayList<>();
    Map<String, Integer> byTenant = new HashMap<>();
    while (traffic.next((at, parsed, bytes) -> {
      times.add(at);
      var e = ((ValidationResult.Valid) parsed).event();
      int i = Integer.parseInt(e.tenant().substring(1));
      assertEquals(i % 2 == 0 ? "a" : "b", e.provider());
      byTenant.merge(e.tenant(), 1, Integer::sum);
    })) {
      // drain
    }
    assertEquals(10_000, times.size());
    assertEquals(10_000, traffic.linesRead());
    for (int i = 0; i < times.size(); i++) {
      assertEquals(SyntheticTraffic.START_MILLIS + i, times.get(i));
    }
    // Skewed: t0000 draws sqrt(1/10) = 32 % of them, t0009 sqrt(1) - sqrt(0.9) = 5 %.
    assertTrue(byTenant.get("t0000") > 2_900 && byTenant.get("t0000") < 3_400, "t0000: " + byTenant.get("t0000"));
    assertTrue(byTenant.get("t0009") > 400 && byTenant.get("t0009") < 650, "t0009: " + byTenant.get("t0009"));
  }

  @Test
  @DisplayName("a spec it cannot read is refused with the part named")
  void shouldRefuseASpecItCannotRead() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SyntheticTraffic.Spec.parse("rate=1000,tenants=ten,span=PT1H"));
    assertTrue(e.getMessage().contains("tenants=ten"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> SyntheticTraffic.Spec.parse("rate=1000,tenants=5"));
    assertThrows(IllegalArgumentException.class, () -> SyntheticTraffic.Spec.parse("rate=0,tenants=5,span=PT1H"));
    assertEquals(86_400_000L, SyntheticTraffic.Spec.parse("rate=1000,tenants=1000,span=PT24H").events());
    assertEquals(Duration.ofHours(24), SyntheticTraffic.Spec.parse("rate=1000,tenants=1000,span=PT24H").span());
  }
}
