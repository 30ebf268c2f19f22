package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Quota;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Operator input for the registry is checked against the configuration, naming the field. */
class TenantInputTest {
  private static final String CONFIG_TEXT = """
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
        mail-api:
          url: http://localhost:8082/send
          rate: 10/s
          quotas:
            pro: { capacity: 5, refill: 1/s }
            free: { capacity: 2, refill: 1/m }
      tenants:
        acme:
          tier: pro
          quotas:
            mail-api: { capacity: 9, refill: 3/s }
      """;
  static final SluiceConfig CONFIG = ConfigLoader.parse(CONFIG_TEXT, Map.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  private static com.fasterxml.jackson.databind.JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static String refusal(Runnable r) {
    return assertThrows(TenantInput.Refused.class, r::run).getMessage();
  }

  @Test
  void aCommandLineRecordKeepsWhatItDoesNotGive() {
    TenantRecord current = TenantInput.current(CONFIG, "acme", null);

    TenantRecord set = TenantInput.fromCommandLine(CONFIG, current, null,
        List.of("payments-api=60,20/s"), null);

    assertEquals(new TenantRecord("pro", Map.of(
        "payments-api", new Quota(60, Rate.parse("20/s")),
        "mail-api", new Quota(9, Rate.parse("3/s"))), false), set,
        "the file's tier and its other quota stay; the one given replaces its provider's");
  }

  @Test
  void aNewTenantGetsTheDefaultTierOrNeedsOne() {
    assertEquals("free", TenantInput.fromCommandLine(CONFIG, null, null, List.of(), null).tier());
    SluiceConfig noDefault = ConfigLoader.parse(CONFIG_TEXT.replace("defaultTier: free\n", ""), Map.of());
    assertTrue(refusal(() -> TenantInput.fromCommandLine(noDefault, null, null, List.of(), null))
        .startsWith("tier: required"));
    assertEquals(new TenantRecord("free", Map.of(), true),
        TenantInput.fromCommandLine(CONFIG, null, "free", null, true));
  }

  @Test
  void eachBadFieldIsNamed() {
    assertTrue(refusal(() -> TenantInput.checkId("acme corp")).startsWith("tenant: "));
    assertTrue(refusal(() -> TenantInput.checkId("a".repeat(129))).startsWith("tenant: "));
    assertTrue(refusal(() -> TenantInput.checkId("")).startsWith("tenant: "));
    assertTrue(refusal(() -> TenantInput.checkPrefix("ac*")).startsWith("prefix: "));
    assertEquals("tier: \"gold\" is not a configured tier (tiers: free, pro)",
        refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "gold", null, null)));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("nope=1,1/s"), null)).startsWith("quotas.\"nope\": not a configured provider"));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=0,1/s"), null)).startsWith("quotas.payments-api.capacity: "));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=NaN,1/s"), null)).startsWith("quotas.payments-api.capacity: "));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=1e10,1/s"), null)).startsWith("quotas.payments-api.capacity: "));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=5,fast"), null)).startsWith("quotas.payments-api.refill: "));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=5,99999999999/s"), null)).startsWith("quotas.payments-api.refill: "));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api"), null)).startsWith("quotas: expected PROVIDER=CAPACITY,REFILL"));
    assertTrue(refusal(() -> TenantInput.fromCommandLine(CONFIG, null, "pro",
        List.of("payments-api=" + "9".repeat(200) + ",1/s"), null)).startsWith("quotas: longer"));
  }

  @Test
  void anAdminApiBodyIsTheWholeRecordAndRefusesWhatItDoesNotKnow() throws Exception {
    assertEquals(new TenantRecord("pro", Map.of("payments-api", new Quota(60, Rate.parse("20/s"))),
        false), TenantInput.fromJson(CONFIG, tree("""
            {"tier":"pro","quotas":{"payments-api":{"capacity":60,"refill":"20/s"}},"shadow":false}
            """)));
    assertTrue(refusal(() -> TenantInput.fromJson(CONFIG, tree("{\"quotas\":{}}")))
        .startsWith("tier: "));
    assertTrue(refusal(() -> TenantInput.fromJson(CONFIG, tree(
        "{\"tier\":\"pro\",\"shadow\":\"yes\"}"))).startsWith("shadow: "));
    assertTrue(refusal(() -> TenantInput.fromJson(CONFIG, tree(
        "{\"tier\":\"pro\",\"quota\":{}}"))).startsWith("\"quota\": unknown field"));
    assertTrue(refusal(() -> TenantInput.fromJson(CONFIG, tree(
        "{\"tier\":\"pro\",\"quotas\":{\"payments-api\":{\"capacity\":\"60\",\"refill\":\"1/s\"}}}")))
        .startsWith("quotas.payments-api: "));
    assertTrue(refusal(() -> TenantInput.fromJson(CONFIG, tree("[]"))).startsWith("body: "));
  }

  @Test
  void aRecordReadsBackAsItWasWritten() {
    TenantRecord r = new TenantRecord("free", Map.of("mail-api", new Quota(2.5, Rate.parse("1/h"))), true);
    String value = "1700000000000 " + TenantCodec.stored(r, "ops@host\n\u001b[2J");

    StoredTenant read = TenantCodec.decode("acme", value).orElseThrow();

    assertEquals(r, read.record());
    assertEquals("ops@host[2J", read.by(), "control characters are dropped");
    assertEquals("0.0002777777777777778/s", TenantCodec.rate(r.quotas().get("mail-api").refill()));
    assertTrue(TenantCodec.decode("acme", "1 {\"tier\":5}").isEmpty(), "not a record: none");
    assertTrue(TenantCodec.decode("acme", "1 {" + " ".repeat(16_000) + "\"tier\":\"pro\"}").isEmpty(), "too long: none");
  }

  @Test
  void aRegistryRecordOverridesTheFileButKeepsItsRulesAndANameLessTierIsIgnored() {
    TenantRecord free = new TenantRecord("free", Map.of(), true);
    assertEquals("free", TenantRecord.effective(CONFIG, "acme", free).tier());
    assertEquals(Map.of(), TenantRecord.effective(CONFIG, "acme", free).quotas(),
        "the record's quotas replace the file's as a whole");
    assertEquals("pro", TenantRecord.effective(CONFIG, "acme",
        new TenantRecord("removed-tier", Map.of(), false)).tier(), "the file's entry");
    assertEquals(null, TenantRecord.effective(CONFIG, "unlisted", null));
  }
}
