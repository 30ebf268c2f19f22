package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Several quota rules per event: a tenant's overall budget, per-attribute rules, tier budgets. */
class QuotaRulesConfigTest {
  private static final String BASE = """
      redis: { uri: "redis://127.0.0.1:6379" }
      tiers:
        pro: { weight: 4, budgets: { payments-api: { capacity: 500, refill: 100/s } } }
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
        acme:
          tier: pro
          overall: { capacity: 60, refill: 20/s }
          rules:
            refunds: { path: refunds, capacity: 5, refill: 10/h }
            exports: { provider: payments-api, attribute: x-action, equals: export, capacity: 2, refill: 1/m }
        initech: {}
      """;

  @Test
  void shouldBindEveryKindOfRule() {
    SluiceConfig config = ConfigLoader.parse(BASE, Map.of());
    assertEquals(new Quota(60, new Rate(20)), config.overallOf("acme").orElseThrow());
    assertEquals(new Quota(500, new Rate(100)), config.tierBudgetOf("payments-api", "acme").orElseThrow());
    assertTrue(config.tierBudgetOf("payments-api", "initech").isEmpty(), "free has no budget");
    assertTrue(config.overallOf("initech").isEmpty());
    QuotaRule refunds = config.tenants().get("acme").rules().get("refunds");
    assertEquals(new Quota(5, new Rate(10.0 / 3600)), refunds.quota());
    assertNull(refunds.provider());
    QuotaRule exports = config.tenants().get("acme").rules().get("exports");
    assertEquals("x-action", exports.attribute());
    assertEquals("export", exports.equals());
  }

  @Test
  void shouldKeepATodaysConfigurationAsItWas() {
    SluiceConfig config = ConfigLoader.parse(BASE.replace(
        "tenants:\n", "tenants:\n  plain: { tier: pro }\n"), Map.of());
    TenantConfig plain = config.tenants().get("plain");
    assertNull(plain.overall());
    assertTrue(plain.rules().isEmpty());
    assertEquals(new TierConfig(1), config.tiers().get("free"));
  }

  @Test
  void shouldMatchAPathRuleOnTheSegmentsNotTheQuery() {
    QuotaRule rule = new QuotaRule(null, "refunds", null, null, new Quota(1, new Rate(1)));
    assertTrue(rule.matches("p", "refunds", Map.of()));
    assertTrue(rule.matches("p", "refunds/42", Map.of()));
    assertTrue(rule.matches("p", "refunds?amount=3", Map.of()));
    assertFalse(rule.matches("p", "refundsX", Map.of()));
    assertFalse(rule.matches("p", "v1/refunds", Map.of()));
    assertFalse(rule.matches("p", null, Map.of()));
  }

  @Test
  void shouldMatchAnAttributeRuleOnItsExactValueAndProvider() {
    QuotaRule rule = new QuotaRule("payments-api", null, "x-action", "export", new Quota(1, new Rate(1)));
    assertTrue(rule.matches("payments-api", null, Map.of("x-action", "export")));
    assertFalse(rule.matches("payments-api", null, Map.of("x-action", "Export")));
    assertFalse(rule.matches("sms-api", null, Map.of("x-action", "export")));
    assertFalse(rule.matches("payments-api", null, Map.of()));
  }

  @Test
  void shouldNameARuleThatMatchesEveryEvent() {
    assertEquals("tenants.acme.rules.refunds: matches every event: give a provider, a path or an "
        + "attribute with equals (a budget across all providers is the tenant's overall)",
        error(BASE.replace("{ path: refunds, capacity: 5", "{ capacity: 5")));
  }

  @Test
  void shouldNameAnAttributeWithoutTheValueItMustHave() {
    assertEquals("tenants.acme.rules.exports.equals: attribute and equals go together: give both or neither",
        error(BASE.replace("equals: export, ", "")));
  }

  @Test
  void shouldNameARuleTowardAProviderThatDoesNotExist() {
    assertEquals("tenants.acme.rules.exports.provider: \"sms-api\" is not a configured provider "
        + "(providers: payments-api)", error(BASE.replace("provider: payments-api, attribute", "provider: sms-api, attribute")));
  }

  @Test
  void shouldNameATierBudgetTowardAProviderThatDoesNotExist() {
    assertEquals("tiers.pro.budgets.sms-api: \"sms-api\" is not a configured provider (providers: payments-api)",
        error(BASE.replace("budgets: { payments-api:", "budgets: { sms-api:")));
  }

  @Test
  void shouldRefuseATierBudgetWithARedisClusterNamingIt() {
    String message = error(BASE.replace("redis://127.0.0.1:6379", "redis-cluster://127.0.0.1:7000,127.0.0.1:7001"));
    assertTrue(message.startsWith("tiers.pro.budgets.payments-api: a tier-wide budget is not available "
        + "with a Redis Cluster"), message);
  }

  @Test
  void shouldNameAnOverallBudgetWithoutARate() {
    String message = error(BASE.replace("overall: { capacity: 60, refill: 20/s }", "overall: { capacity: 60, refill: lots }"));
    assertTrue(message.startsWith("tenants.acme.overall.refill: "), message);
  }

  private static String error(String yaml) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, Map.of())).getMessage();
  }
}
