package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.gate.limiter.BucketSpec;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The limit step's terms agree with the configuration's own answers, listed tenants or not. */
class LimitTermsTest {
  private static final String BASE = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      reservationHorizon: 10s
      tiers: { pro: { weight: 4, budgets: { budgeted-api: { capacity: 100, refill: 10/s } } }, free: { weight: 1 } }
      %s
      providers:
        payments-api: { url: "http://localhost:8081/", rate: 50/s, quotas: { pro: { capacity: 4, refill: 2/s }, free: { capacity: 2, refill: 1/s } } }
        watched-api: { url: "http://localhost:8082/", rate: 50/s, shadow: true, quotas: { pro: { capacity: 4, refill: 2/s }, free: { capacity: 2, refill: 1/s } } }
        budgeted-api: { url: "http://localhost:8083/", rate: 50/s, quotas: { pro: { capacity: 4, refill: 2/s }, free: { capacity: 2, refill: 1/s } } }
      tenants:
        globex: { tier: pro }
        own: { tier: free, quotas: { payments-api: { capacity: 9, refill: 3/s } } }
        quiet: { tier: free, shadow: true }
      """;

  private static SluiceConfig config(String defaultTier) {
    return ConfigLoader.parse(BASE.formatted(defaultTier), Map.of());
  }

  private static final SluiceConfig CONFIG = config("defaultTier: free");

  @Test
  void anUnlistedTenantHasTheDefaultTiersQuotaAndItsProvidersShadowFlag() {
    LimitTerms terms = new LimitTerms(CONFIG);
    LimitTerms.Terms t = terms.of("payments-api", "anyone", "free");
    assertEquals(new BucketSpec(2, 1, 10_000_000), t.spec());
    assertFalse(t.shadow());
    assertFalse(t.mayHaveRules(), "no overall, no rules, no budget of free toward payments-api");
    assertTrue(terms.of("watched-api", "anyone", "free").shadow());
  }

  @Test
  void everyUnlistedTenantOfATierSharesOneAnswer() {
    LimitTerms terms = new LimitTerms(CONFIG);
    assertSame(terms.of("payments-api", "a", "free"), terms.of("payments-api", "b", "free"));
  }

  @Test
  void aTierBudgetMakesAnEventMultiRuleAsEventRulesSays() {
    LimitTerms terms = new LimitTerms(CONFIG);
    // An unlisted tenant resolved to pro (the default tier before a reload, say) toward a
    // provider its tier has a budget for.
    assertTrue(terms.of("budgeted-api", "anyone", "pro").mayHaveRules());
    WorkEvent e = new WorkEvent("e1", "anyone", "budgeted-api", 1, null, null, null, Map.of());
    assertFalse(ChargedRules.of(CONFIG, e, "pro").isEmpty());
    assertFalse(terms.of("budgeted-api", "anyone", "free").mayHaveRules());
    assertTrue(ChargedRules.of(CONFIG, e, "free").isEmpty());
  }

  @Test
  void aListedTenantIsWorkedOutAsTheConfigurationSays() {
    LimitTerms terms = new LimitTerms(CONFIG);
    assertEquals(new BucketSpec(4, 2, 10_000_000), terms.of("payments-api", "globex", "pro").spec());
    assertEquals(new BucketSpec(9, 3, 10_000_000), terms.of("payments-api", "own", "free").spec(),
        "its own quota toward the provider");
    assertTrue(terms.of("payments-api", "quiet", "free").shadow(), "the tenant's shadow flag");
    assertTrue(terms.of("payments-api", "globex", "pro").mayHaveRules(), "left to ChargedRules");
  }

  @Test
  void aTenantWithNoQuotaHasNoTerms() {
    LimitTerms terms = new LimitTerms(config(""));
    assertNull(terms.of("payments-api", "anyone", "free"), "unlisted and no default tier");
    assertNull(terms.of("unknown-api", "globex", "pro"), "no such provider");
    assertEquals(new BucketSpec(4, 2, 10_000_000), terms.of("payments-api", "globex", "pro").spec());
  }
}
