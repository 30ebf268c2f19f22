package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A tenant's overall budget and per-attribute rules in the registry: given as the file gives them,
 * checked as the file's are, naming the field; a record holding them replaces the file's as a
 * whole, and one that does not leaves the file's in force.
 */
class BudgetInputTest {
  private static final SluiceConfig CONFIG = ConfigLoader.parse("""
      tiers: { pro: { weight: 4 }, free: { weight: 1 } }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/pay
          rate: 50/s
          quotas: { pro: { capacity: 40, refill: 15/s }, free: { capacity: 10, refill: 2/s } }
      tenants:
        acme:
          tier: pro
          overall: { capacity: 100, refill: 50/s }
          rules:
            refunds: { provider: payments-api, path: refunds, capacity: 5, refill: 10/h }
      """, Map.of());
  private static final QuotaRule REFUNDS = new QuotaRule("payments-api", "refunds", null, null,
      new Quota(5, Rate.parse("10/h")));
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TenantRecord set(TenantRecord current, List<String> rules, List<String> removed,
      String overall) {
    return TenantInput.fromCommandLine(CONFIG, current,
        new TenantInput.Changes(null, null, null, null, null, rules, removed, overall));
  }

  private static String refusal(List<String> rules, String overall) {
    return assertThrows(TenantInput.Refused.class, () -> set(null, rules, null, overall)).getMessage();
  }

  @Test
  void aCommandLineStartsFromTheTenantsBudgetsAndChangesWhatItGives() {
    TenantRecord fromFile = TenantInput.current(CONFIG, "acme", null);
    assertNull(fromFile.budgets(), "the file's entry as the start leaves the file's budgets the file's");
    assertNull(TenantInput.fromCommandLine(CONFIG, "acme", fromFile, new TenantInput.Changes(
        "pro", null, true, null, null)).budgets(),
        "a --tier or --shadow on a file tenant copies no budget: a later file edit applies");

    TenantRecord set = TenantInput.fromCommandLine(CONFIG, "acme", fromFile, new TenantInput.Changes(
        null, null, null, null, null, List.of("vip=2,1/m,attribute=plan,equals=vip"), null, null));
    assertEquals(new TenantBudgets(new Quota(100, Rate.parse("50/s")), Map.of("refunds", REFUNDS,
        "vip", new QuotaRule(null, null, "plan", "vip", new Quota(2, Rate.parse("1/m"))))),
        set.budgets(), "a --rule starts from the file's in force, and holds them from then on");
    set = TenantInput.fromCommandLine(CONFIG, "acme", set, new TenantInput.Changes(null, null, null,
        null, null, null, List.of("refunds"), "none"));
    assertEquals(new TenantBudgets(null, Map.of("vip", new QuotaRule(null, null, "plan", "vip",
        new Quota(2, Rate.parse("1/m"))))), set.budgets());

    assertNull(set(null, null, null, null).budgets(), "nothing given: the file's stay in force");
    assertEquals(new TenantBudgets(new Quota(9, Rate.parse("3/s")), Map.of()),
        set(null, null, null, "9,3/s").budgets());
  }

  @Test
  void eachBadRuleOrBudgetIsRefusedNamingItsField() {
    assertTrue(refusal(List.of("refunds=5,10/h"), null).startsWith("rules.refunds: matches every event"));
    assertTrue(refusal(List.of("vip=5,10/h,attribute=plan"), null)
        .startsWith("rules.vip.equals: attribute and equals go together"));
    assertTrue(refusal(List.of("x=5,10/h,provider=nope"), null)
        .startsWith("rules.x.provider: \"nope\" is not a configured provider"));
    assertTrue(refusal(List.of("x=0,10/h,path=a"), null).startsWith("rules.x.capacity: "));
    assertTrue(refusal(List.of("x=5,fast,path=a"), null).startsWith("rules.x.refill: "));
    assertTrue(refusal(List.of("x=5,1/s,colour=red"), null).startsWith("rules.x: expected provider="));
    assertEquals("rules.x.path: only printable characters, got one (U+0001) at 1",
        refusal(List.of("x=5,1/s,path=a\u0001b"), null));
    assertEquals("rules.x.equals: only printable characters, got one (U+2028) at 2",
        refusal(List.of("x=5,1/s,attribute=plan,equals=vi\u2028p"), null));
    assertEquals("caf\u00e9", set(null, List.of("x=5,1/s,path=caf\u00e9"), null, null).budgets()
        .rules().get("x").path(), "printable beyond ASCII is fine");
    assertTrue(refusal(List.of("a b=5,1/s,path=a"), null).startsWith("rules: a rule's name"));
    assertTrue(refusal(List.of("x"), null).startsWith("rules: expected NAME=CAPACITY,REFILL"));
    assertTrue(refusal(null, "100").startsWith("overall: expected CAPACITY,REFILL"));
    assertTrue(refusal(null, "100,99999999999/s").startsWith("overall.refill: "));
    assertTrue(assertThrows(TenantInput.Refused.class, () -> set(null, null, List.of("gone"), null))
        .getMessage().startsWith("rules.gone: the tenant has no such rule"));
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 21; i++) {
      many.add("r" + i + "=1,1/s,path=p" + i);
    }
    assertEquals("rules: at most 20 per tenant, got 21", refusal(many, null));
  }

  @Test
  void anAdminApiBodyHoldsBudgetsOnlyWhenItGivesThem() throws Exception {
    assertNull(TenantInput.fromJson(CONFIG, JSON.readTree("{\"tier\":\"pro\"}")).budgets(),
        "neither overall nor rules: the file's stay in force");
    assertEquals(TenantBudgets.NONE, TenantInput.fromJson(CONFIG, JSON.readTree(
        "{\"tier\":\"pro\",\"overall\":null}")).budgets(), "one given: what is not given is none");
    assertEquals(new TenantBudgets(null, Map.of("refunds", REFUNDS)), TenantInput.fromJson(CONFIG,
        JSON.readTree("""
            {"tier":"pro","rules":{"refunds":{"provider":"payments-api","path":"refunds",
             "capacity":5,"refill":"10/h"}}}""")).budgets());
    assertEquals("rules.refunds.colour: unknown field (expected provider, path, attribute, equals,"
        + " capacity, refill)", assertThrows(TenantInput.Refused.class, () -> TenantInput.fromJson(
            CONFIG, JSON.readTree("{\"tier\":\"pro\",\"rules\":{\"refunds\":{\"colour\":\"red\","
                + "\"capacity\":1,\"refill\":\"1/s\"}}}"))).getMessage());
    assertTrue(assertThrows(TenantInput.Refused.class, () -> TenantInput.fromJson(CONFIG,
        JSON.readTree("{\"tier\":\"pro\",\"overall\":5}"))).getMessage().startsWith("overall: "));
  }

  @Test
  void budgetsReadBackAsWrittenAndAHostileRuleIsNoRecord() {
    TenantRecord r = new TenantRecord("pro", Map.of(), false, Map.of(),
        new TenantBudgets(null, Map.of("refunds", REFUNDS)));
    assertEquals(r, TenantCodec.decode("acme", "1 " + TenantCodec.stored(r, "ops")).orElseThrow().record());
    TenantRecord none = r.withEndpoints(Map.of());
    assertEquals(none, TenantCodec.decode("acme", "1 " + TenantCodec.stored(none, "ops")).orElseThrow().record());
    TenantRecord old = new TenantRecord("pro", Map.of(), false);
    assertNull(TenantCodec.decode("acme", "1 " + TenantCodec.stored(old, "ops")).orElseThrow()
        .record().budgets(), "a record written before budgets holds none");

    for (String rule : List.of("{\"capacity\":1,\"refill\":\"1/s\"}",
        "{\"attribute\":\"plan\",\"capacity\":1,\"refill\":\"1/s\"}")) {
      assertTrue(TenantCodec.decode("acme", "1 {\"tier\":\"pro\",\"rules\":{\"x\":" + rule + "}}")
          .isEmpty(), rule);
    }
    assertTrue(TenantCodec.decode("acme", "1 {\"tier\":\"pro\",\"rules\":{\"a b\":"
        + "{\"path\":\"p\",\"capacity\":1,\"refill\":\"1/s\"}}}").isEmpty(), "a name unfit for a key");
  }

  @Test
  void aRecordHoldingBudgetsReplacesTheFilesAndOneWithoutKeepsThem() {
    TenantConfig kept = TenantRecord.effective(CONFIG, "acme", new TenantRecord("free", Map.of(), false));
    assertEquals(new Quota(100, Rate.parse("50/s")), kept.overall());
    assertEquals(Map.of("refunds", REFUNDS), kept.rules());

    TenantConfig replaced = TenantRecord.effective(CONFIG, "acme", new TenantRecord("free",
        Map.of(), false, Map.of(), TenantBudgets.NONE));
    assertNull(replaced.overall());
    assertEquals(Map.of(), replaced.rules());
    assertEquals("free", replaced.tier());
  }
}
