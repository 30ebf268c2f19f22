package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.ConfigLoader;
import io.sluice.config.ProviderLimit;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A tenant's endpoints given to the registry are checked as the file's are (a per-tenant provider,
 * its allowed hosts, no internal address) and more (https, no credentials in the URL, bounds), each
 * refusal naming its field and never quoting a URL's query; and where a tenant's calls go is the
 * registry's endpoint over the file's.
 */
class EndpointInputTest {
  private static final String CONFIG_TEXT = """
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers:
        hooks:
          endpoints: perTenant
          rate: 2/s
          allowedHosts: ["*.customers.example", hooks.partner.example]
          quotas: { std: { capacity: 10, refill: 1/s } }
        lab:
          endpoints: perTenant
          allowPrivateNetworks: true
          allowPlainHttp: true
          rate: 2/s
          quotas: { std: { capacity: 10, refill: 1/s } }
        payments-api:
          url: http://localhost:8081/pay
          rate: 50/s
          quotas: { std: { capacity: 10, refill: 1/s } }
      tenants:
        acme:
          endpoints: { hooks: "https://acme.customers.example/file" }
      """;
  private static final SluiceConfig CONFIG = ConfigLoader.parse(CONFIG_TEXT, Map.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TenantRecord set(TenantRecord current, List<String> endpoints, List<String> removed) {
    return TenantInput.fromCommandLine(CONFIG, current,
        new TenantInput.Changes(null, null, null, endpoints, removed));
  }

  private static String refusal(List<String> endpoints) {
    return assertThrows(TenantInput.Refused.class, () -> set(null, endpoints, null)).getMessage();
  }

  @Test
  void anEndpointIsGivenWithOrWithoutItsOwnRateAndRemovedByProvider() {
    TenantRecord record = set(null, List.of(
        "hooks=https://acme.customers.example/in?token=s3cret,x=1,rate=5/s",
        "lab=http://127.0.0.1:9000/in"), null);

    assertEquals(Map.of(
        "hooks", new TenantEndpoint(URI.create("https://acme.customers.example/in?token=s3cret,x=1"),
            List.of(ProviderLimit.rate(5))),
        "lab", new TenantEndpoint(URI.create("http://127.0.0.1:9000/in"))), record.endpoints(),
        "a comma in the query stays in the URL; only a last ,rate= is the rate");
    assertEquals("std", record.tier(), "what is not given keeps its value (the default tier)");

    TenantRecord changed = set(record, List.of("lab=http://10.1.2.3/in"), List.of("hooks"));
    assertEquals(Map.of("lab", new TenantEndpoint(URI.create("http://10.1.2.3/in"))),
        changed.endpoints(), "one replaced, one removed");
  }

  @Test
  void eachBadEndpointIsRefusedNamingItsField() {
    assertEquals("endpoints.payments-api: not a provider with endpoints: perTenant (those: hooks, lab)",
        refusal(List.of("payments-api=https://acme.customers.example/in")));
    assertTrue(refusal(List.of("nope=https://a.customers.example/"))
        .startsWith("endpoints.nope: not a provider"));
    assertTrue(refusal(List.of("https://acme.customers.example/in")).startsWith("endpoints: expected"));
    assertEquals("endpoints.hooks.url: expected https, got \"http://acme.customers.example/in\""
        + " (http only toward providers with allowPlainHttp: true)",
        refusal(List.of("hooks=http://acme.customers.example/in")));
    assertEquals("endpoints.hooks.url: host \"evil.example\" is not in providers.hooks.allowedHosts"
        + " (*.customers.example, hooks.partner.example)",
        refusal(List.of("hooks=https://evil.example/in")));
    assertTrue(refusal(List.of("hooks=https://user:pw@acme.customers.example/in"))
        .startsWith("endpoints.hooks.url: has user information"));
    assertTrue(refusal(List.of("hooks=https://acme.customers.example/in#x"))
        .startsWith("endpoints.hooks.url: has a fragment"));
    assertTrue(refusal(List.of("hooks=/in")).startsWith("endpoints.hooks.url: expected an absolute"));
    assertTrue(refusal(List.of("hooks=https://acme.customers.example/a b?token=s3cret"))
        .startsWith("endpoints.hooks.url: not a URL"));
    assertTrue(refusal(List.of("hooks=https://acme.customers.example/" + "a".repeat(1_000)))
        .startsWith("endpoints.hooks.url: longer than 1000 characters"));
    assertTrue(refusal(List.of("hooks=https://acme.customers.example/in,rate=fast"))
        .startsWith("endpoints.hooks.rate: expected a rate"));
    assertTrue(refusal(List.of("hooks=https://acme.customers.example/in,rate=2000000000/s"))
        .startsWith("endpoints.hooks.rate: at most 1000000000/s"));
    assertTrue(assertThrows(TenantInput.Refused.class, () -> set(null, List.of(), List.of("hooks")))
        .getMessage().startsWith("endpoints.hooks: the tenant has no endpoint toward it in the registry"));
  }

  @Test
  void aPerTenantEndpointMayNotNameAnInternalAddressUnlessItsProviderAllowsIt() {
    SluiceConfig open = ConfigLoader.parse(CONFIG_TEXT.replace(
        "allowedHosts: [\"*.customers.example\", hooks.partner.example]", ""), Map.of());
    for (String host : List.of("127.0.0.1", "10.0.0.7", "169.254.169.254", "[::1]", "localhost",
        "2130706433")) {
      String why = assertThrows(TenantInput.Refused.class, () -> TenantInput.fromCommandLine(open,
          null, new TenantInput.Changes(null, null, null, List.of("hooks=https://" + host + "/in"),
              null)), host).getMessage();
      assertTrue(why.startsWith("endpoints.hooks.url: host "), why);
    }
    assertEquals(Map.of("lab", new TenantEndpoint(URI.create("http://169.254.169.254/in"))),
        set(null, List.of("lab=http://169.254.169.254/in"), null).endpoints(),
        "allowPrivateNetworks: true lets it through, and allowPlainHttp: true http");
  }

  @Test
  void noRefusalQuotesAUrlsQueryOrCredentials() {
    List<String> messages = new ArrayList<>();
    for (String url : List.of("http://acme.customers.example/in?token=s3cret",
        "https://evil.example/in?token=s3cret", "https://user:s3cret@acme.customers.example/in",
        "https://acme.customers.example/in?token=s3cret#s3cret", "ftp://x/?token=s3cret",
        "https://acme.customers.example/a b?token=s3cret")) {
      messages.add(refusal(List.of("hooks=" + url)));
    }
    messages.forEach(m -> assertFalse(m.contains("s3cret"), m));
    assertEquals("\"https://acme.customers.example:8443/in?...\"", EndpointInput.shown(
        URI.create("https://user:pw@acme.customers.example:8443/in?token=s3cret")));
  }

  @Test
  void aTenantHoldsAtMostEightEndpoints() {
    StringBuilder config = new StringBuilder("tiers: { std: { weight: 1 } }\ndefaultTier: std\n"
        + "providers:\n");
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      config.append("  p").append(i).append(": { endpoints: perTenant, allowPrivateNetworks: true, allowPlainHttp: true,"
          + " rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } }\n");
      many.add("p" + i + "=http://127.0.0.1/" + i);
    }
    SluiceConfig nine = ConfigLoader.parse(config.toString(), Map.of());
    assertEquals("endpoints: at most 8 per tenant, got 9", assertThrows(TenantInput.Refused.class,
        () -> TenantInput.fromCommandLine(nine, null, new TenantInput.Changes(null, null, null,
            many, null))).getMessage());
    assertEquals(8, TenantInput.fromCommandLine(nine, null, new TenantInput.Changes(null, null,
        null, many.subList(0, 8), null)).endpoints().size());
  }

  @Test
  void aRecordTooLargeToReadBackIsRefusedWhenWrittenNamingItsLargestField() {
    StringBuilder config = new StringBuilder("tiers: { std: { weight: 1 } }\ndefaultTier: std\n"
        + "providers:\n");
    Map<String, TenantEndpoint> endpoints = new java.util.TreeMap<>();
    for (int i = 0; i < 8; i++) {
      config.append("  p").append(i).append(": { endpoints: perTenant, allowPrivateNetworks: true, allowPlainHttp: true,"
          + " rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } }\n");
      endpoints.put("p" + i, new TenantEndpoint(URI.create("http://127.0.0.1/"
          + "x".repeat(EndpointInput.MAX_URL - 17))));
    }
    SluiceConfig eight = ConfigLoader.parse(config.toString(), Map.of());
    Map<String, QuotaRule> rules = new java.util.TreeMap<>();
    for (int i = 0; i < 20; i++) {
      rules.put("r" + i, new QuotaRule("p0", "\"".repeat(100), "plan", "\\".repeat(100),
          new Quota(5, Rate.parse("10/h"))));
    }
    TenantRecord fits = new TenantRecord("std", Map.of(), false, endpoints, null);
    assertEquals(fits, TenantInput.checkSize(fits), "8 endpoints of 1,000 characters fit");
    TenantRecord big = fits.withBudgets(new TenantBudgets(null, rules));

    String why = assertThrows(TenantInput.Refused.class, () -> TenantInput.checkSize(big))
        .getMessage();
    assertTrue(why.matches("rules: \\d+ characters encoded, making the record \\d+, more than the "
        + TenantInput.MAX_RECORD_CHARS + " a record may have: shorten it"), why);
    assertTrue(TenantCodec.stored(big, "ops").length() > TenantCodec.MAX_VALUE_CHARS,
        "unchecked, it would be read back as no record");
    assertThrows(TenantInput.Refused.class, () -> new TenantRegistry(null).put("acme", big, "ops"),
        "the registry refuses it too, before any write");
    assertThrows(TenantInput.Refused.class, () -> TenantInput.fromCommandLine(eight, big,
        new TenantInput.Changes(null, null, true, null, null)), "a command line leading to it");
    ObjectNode body = TenantCodec.json(big);
    assertThrows(TenantInput.Refused.class, () -> TenantInput.fromJson(eight, body), "a PUT body");
  }

  @Test
  void anAdminApiBodyGivesEndpointsAsAUrlOrAnObject() throws Exception {
    TenantRecord record = TenantInput.fromJson(CONFIG, tree("""
        {"tier":"std","endpoints":{"hooks":{"url":"https://acme.customers.example/in","rate":"300/m"},
         "lab":"http://127.0.0.1:9000/in"}}"""));
    assertEquals(Map.of(
        "hooks", new TenantEndpoint(URI.create("https://acme.customers.example/in"),
            List.of(ProviderLimit.rate(5))),
        "lab", new TenantEndpoint(URI.create("http://127.0.0.1:9000/in"))), record.endpoints());
    assertEquals(Map.of(), TenantInput.fromJson(CONFIG, tree("{\"tier\":\"std\"}")).endpoints(),
        "no endpoints: none (the whole record)");
    assertEquals("endpoints.hooks.limits: unknown field (expected url, rate, secret)", assertThrows(
        TenantInput.Refused.class, () -> TenantInput.fromJson(CONFIG, tree("""
            {"tier":"std","endpoints":{"hooks":{"url":"https://a.customers.example/","limits":[]}}}
            """))).getMessage());
    assertTrue(assertThrows(TenantInput.Refused.class, () -> TenantInput.fromJson(CONFIG, tree(
        "{\"tier\":\"std\",\"endpoints\":{\"hooks\":5}}"))).getMessage().startsWith("endpoints.hooks: "));
    assertTrue(assertThrows(TenantInput.Refused.class, () -> TenantInput.fromJson(CONFIG, tree(
        "{\"tier\":\"std\",\"endpoints\":[]}"))).getMessage().startsWith("endpoints: "));
  }

  @Test
  void anEndpointReadsBackFromRedisAsItWasWrittenAndAHostileOneIsNoRecord() {
    TenantRecord r = set(null, List.of("hooks=https://acme.customers.example/in?t=1,rate=0.5/s"), null);
    String value = "1700000000000 " + TenantCodec.stored(r, "ops");

    assertEquals(r, TenantCodec.decode("acme", value).orElseThrow().record());
    assertTrue(TenantCodec.decode("acme", "1 {\"tier\":\"std\",\"endpoints\":{\"hooks\":"
        + "{\"url\":\"file:///etc/passwd\"}}}").isEmpty(), "not an http(s) URL: no record");
    assertTrue(TenantCodec.decode("acme", "1 {\"tier\":\"std\",\"endpoints\":{\"hooks\":"
        + "{\"url\":\"https://a.customers.example/\",\"rate\":\"fast\"}}}").isEmpty());
  }

  @Test
  void theRegistrysEndpointComesBeforeTheFilesWhileItIsAllowed() {
    TenantEndpoint file = new TenantEndpoint(URI.create("https://acme.customers.example/file"));
    TenantEndpoint own = new TenantEndpoint(URI.create("https://acme.customers.example/own"));
    TenantRecord record = new TenantRecord("std", Map.of(), false, Map.of("hooks", own));

    assertEquals(Optional.of(own), TenantRecord.endpointOf(CONFIG, "hooks", "acme", record));
    assertEquals(Optional.of(file), TenantRecord.endpointOf(CONFIG, "hooks", "acme",
        record.withEndpoints(Map.of())), "none in the record: the file's");
    assertEquals(Optional.of(file), TenantRecord.endpointOf(CONFIG, "hooks", "acme", null));
    assertEquals(Optional.empty(), TenantRecord.endpointOf(CONFIG, "hooks", "globex", null),
        "neither: none (no_endpoint)");
    assertEquals(Optional.of(own), TenantRecord.endpointOf(CONFIG, "hooks", "globex", record));
    assertEquals(Optional.of(file), TenantRecord.endpointOf(CONFIG, "hooks", "acme",
        new TenantRecord("gold", Map.of(), false, Map.of("hooks", own))),
        "a record whose tier is gone is ignored, its endpoints too");
    TenantRecord outside = record.withEndpoints(Map.of("hooks",
        new TenantEndpoint(URI.create("https://evil.example/in"))));
    assertEquals(Optional.empty(), TenantRecord.endpointOf(CONFIG, "hooks", "acme", outside),
        "one the configuration refuses now (written by anything, or allowedHosts narrowed): none,"
            + " not the file's the operator replaced");
    assertTrue(TenantRecord.refusedEndpoint(CONFIG, "hooks", outside).orElseThrow()
        .startsWith("host \"evil.example\" is not in providers.hooks"));
    assertEquals(Optional.empty(), TenantRecord.refusedEndpoint(CONFIG, "hooks", record));
  }

  private static JsonNode tree(String json) throws Exception {
    return JSON.readTree(json);
  }
}
