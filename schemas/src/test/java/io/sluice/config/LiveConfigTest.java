package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveConfigTest {
  private static final String RUNNING = """
      tiers:
        pro: { weight: 4 }
        free: { weight: 1 }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          quotas:
            pro: { capacity: 40, refill: 15/s }
            free: { capacity: 10, refill: 2/s }
      tenants:
        acme: { tier: pro }
      """;

  private static SluiceConfig parse(String yaml) {
    return ConfigLoader.parse(yaml, Map.of());
  }

  private final LiveConfig live = new LiveConfig(parse(RUNNING));

  @Test
  void aReloadThatChangesQuotasRatesTiersAndTenantsIsSwappedInAsAWhole() {
    SluiceConfig before = live.get();
    List<SluiceConfig> seen = new ArrayList<>();
    live.onChange(seen::add);

    LiveConfig.Outcome outcome = live.reload(() -> parse(RUNNING
        .replace("rate: 50/s", "rate: 20/s")
        .replace("pro: { weight: 4 }", "pro: { weight: 6 }")
        .replace("acme: { tier: pro }", "acme: { tier: free }\n  initech: { tier: pro }")));

    assertEquals(new LiveConfig.Outcome.Applied(List.of("tiers.pro", "tenants.acme",
        "tenants.initech", "providers.payments-api")), outcome);
    assertEquals(20, live.get().providers().get("payments-api").rate().perSecond());
    assertEquals(6, live.get().tiers().get("pro").weight());
    assertEquals("free", live.get().tierOf("acme").orElseThrow());
    assertEquals(List.of(live.get()), seen, "listeners see the new configuration once");
    assertEquals(50, before.providers().get("payments-api").rate().perSecond(),
        "a snapshot taken before the reload never changes under its reader");
  }

  @Test
  void aBadFileKeepsTheRunningConfigurationAndNamesTheField() {
    SluiceConfig before = live.get();

    LiveConfig.Outcome outcome = live.reload(() -> parse(RUNNING.replace("rate: 50/s", "rate: fast")));

    LiveConfig.Outcome.Rejected rejected = assertInstanceOf(LiveConfig.Outcome.Rejected.class, outcome);
    assertTrue(rejected.reason().contains("providers.payments-api.rate"), rejected.reason());
    assertSame(before, live.get());
  }

  @Test
  void aChangeThatNeedsARestartIsRefusedWholeEvenAlongsideReloadableOnes() {
    SluiceConfig before = live.get();

    LiveConfig.Outcome outcome = live.reload(() -> parse(RUNNING
        .replace("rate: 50/s", "rate: 20/s")
        .replace("localhost:8081", "localhost:9091")
        .replace("defaultTier: free", "defaultTier: free\nmaxAttempts: 3")));

    LiveConfig.Outcome.Rejected rejected = assertInstanceOf(LiveConfig.Outcome.Rejected.class, outcome);
    assertEquals("these settings need a restart, so nothing was reloaded: maxAttempts, "
        + "providers.payments-api.url", rejected.reason());
    assertSame(before, live.get());
  }

  @Test
  void addingOrRemovingAProviderNeedsARestart() {
    LiveConfig.Outcome outcome = live.reload(() -> parse(RUNNING.replace("tenants:", """
          mail-api:
            url: http://localhost:8082/
            rate: 5/s
            quotas:
              pro: { capacity: 4, refill: 1/s }
              free: { capacity: 1, refill: 1/s }
        tenants:""")));

    LiveConfig.Outcome.Rejected rejected = assertInstanceOf(LiveConfig.Outcome.Rejected.class, outcome);
    assertTrue(rejected.reason().contains("providers (added or removed: [mail-api])"), rejected.reason());
  }

  @Test
  void theSameFileAgainIsUnchangedAndNotifiesNobody() {
    List<SluiceConfig> seen = new ArrayList<>();
    live.onChange(seen::add);

    assertEquals(new LiveConfig.Outcome.Unchanged(), live.reload(() -> parse(RUNNING)));
    assertEquals(List.of(), seen);
  }
}
