package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * One tenant's settings reach Sluice two ways: written in the configuration file (the schema, the
 * binder and {@code ConfigChecks}) or given to the registry by an operator ({@link TenantInput},
 * {@link EndpointInput}, {@link BudgetInput}). One table of settings, valid and invalid, run
 * through both: each row is one tenant's settings as JSON (which is YAML too, so the file reads the
 * very same text), and both must accept it or both refuse it. Where they rightly differ the row
 * says which accepts and why ({@link Row#differs}); nothing else may differ.
 *
 * <p>The registry's record is whole: it needs its tier, where the file falls back on
 * {@code defaultTier}; so every row names one, but the one about the tier.
 */
class TenantSettingsAgreementTest {
  private static final String BASE = """
      tiers: { pro: { weight: 4 }, free: { weight: 1 } }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/pay
          rate: 50/s
          quotas: { pro: { capacity: 40, refill: 15/s }, free: { capacity: 10, refill: 2/s } }
        hooks:
          endpoints: perTenant
          rate: 2/s
          allowedHosts: ["*.customers.example"]
          quotas: { pro: { capacity: 10, refill: 1/s }, free: { capacity: 10, refill: 1/s } }
      """;
  private static final SluiceConfig CONFIG = ConfigLoader.parse(BASE, Map.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param why       what the row is about
   * @param settings  the tenant's settings, as JSON
   * @param file      whether the file accepts them
   * @param registry  whether the registry accepts them
   * @param differs   when {@code file != registry}: why that is right
   */
  record Row(String why, String settings, boolean file, boolean registry, String differs) {
    static Row both(boolean accepted, String why, String settings) {
      return new Row(why, settings, accepted, accepted, null);
    }

    static Row differs(String why, String settings, boolean file, boolean registry, String because) {
      return new Row(why, settings, file, registry, because);
    }
  }

  static final List<Row> TABLE = List.of(
      // Tier
      Row.both(true, "a configured tier", "{\"tier\": \"pro\"}"),
      Row.both(false, "a tier that is not configured", "{\"tier\": \"gold\"}"),
      Row.differs("no tier", "{}", true, false,
          "the file falls back on defaultTier; the registry's record is written whole, and the API"
              + " asks for its tier (a command line falls back on defaultTier as the file does)"),
      // Quotas
      Row.both(true, "a quota toward a configured provider",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60, \"refill\": \"20/s\"}}}"),
      Row.both(true, "a fractional capacity and a refill per hour",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 0.5, \"refill\": \"1.5/h\"}}}"),
      Row.both(false, "a quota toward a provider that is not configured",
          "{\"tier\": \"pro\", \"quotas\": {\"nowhere\": {\"capacity\": 60, \"refill\": \"20/s\"}}}"),
      Row.both(false, "a capacity of 0",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 0, \"refill\": \"20/s\"}}}"),
      Row.both(false, "a negative capacity",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": -1, \"refill\": \"20/s\"}}}"),
      Row.both(false, "a capacity written as text",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": \"60\", \"refill\": \"20/s\"}}}"),
      Row.both(false, "a quota without its refill",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60}}}"),
      Row.both(false, "a refill without its unit",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60, \"refill\": \"20\"}}}"),
      Row.both(false, "a refill per day",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60, \"refill\": \"20/d\"}}}"),
      Row.both(false, "a refill of 0",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60, \"refill\": \"0/s\"}}}"),
      Row.differs("a capacity above a billion units",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 2e9, \"refill\": \"20/s\"}}}",
          true, false, "the registry bounds operator input (TenantInput.MAX_CAPACITY); the file is"
              + " the deployment's own, bounded by its schema only"),
      Row.differs("a refill above a billion a second",
          "{\"tier\": \"pro\", \"quotas\": {\"payments-api\": {\"capacity\": 60, \"refill\": \"2000000000/s\"}}}",
          true, false, "the registry bounds operator input (TenantInput.MAX_REFILL); the file is the"
              + " deployment's own"),
      Row.both(false, "an unknown setting", "{\"tier\": \"pro\", \"burst\": 5}"),
      Row.both(true, "shadow mode", "{\"tier\": \"pro\", \"shadow\": true}"),
      Row.both(false, "shadow mode written as text", "{\"tier\": \"pro\", \"shadow\": \"yes\"}"),
      // Overall budget and rules
      Row.both(true, "an overall budget",
          "{\"tier\": \"pro\", \"overall\": {\"capacity\": 100, \"refill\": \"50/s\"}}"),
      Row.both(false, "an overall budget with a refill of no unit",
          "{\"tier\": \"pro\", \"overall\": {\"capacity\": 100, \"refill\": \"50\"}}"),
      Row.both(true, "a rule on a provider and a path",
          "{\"tier\": \"pro\", \"rules\": {\"refunds\": {\"provider\": \"payments-api\", \"path\": \"refunds\","
              + " \"capacity\": 5, \"refill\": \"10/h\"}}}"),
      Row.both(true, "a rule on an attribute's value",
          "{\"tier\": \"pro\", \"rules\": {\"exports\": {\"attribute\": \"x-action\", \"equals\": \"export\","
              + " \"capacity\": 2, \"refill\": \"1/m\"}}}"),
      Row.both(false, "a rule that matches every event",
          "{\"tier\": \"pro\", \"rules\": {\"all\": {\"capacity\": 5, \"refill\": \"10/h\"}}}"),
      Row.both(false, "a rule's attribute without equals",
          "{\"tier\": \"pro\", \"rules\": {\"exports\": {\"attribute\": \"x-action\", \"capacity\": 2,"
              + " \"refill\": \"1/m\"}}}"),
      Row.both(false, "a rule toward a provider that is not configured",
          "{\"tier\": \"pro\", \"rules\": {\"refunds\": {\"provider\": \"nowhere\", \"capacity\": 5,"
              + " \"refill\": \"10/h\"}}}"),
      Row.both(false, "a rule whose name is not a name",
          "{\"tier\": \"pro\", \"rules\": {\"re funds\": {\"path\": \"refunds\", \"capacity\": 5,"
              + " \"refill\": \"10/h\"}}}"),
      Row.both(false, "a rule with an unknown condition",
          "{\"tier\": \"pro\", \"rules\": {\"refunds\": {\"method\": \"POST\", \"capacity\": 5,"
              + " \"refill\": \"10/h\"}}}"),
      Row.both(false, "a rule on an empty path",
          "{\"tier\": \"pro\", \"rules\": {\"refunds\": {\"path\": \"\", \"capacity\": 5, \"refill\": \"10/h\"}}}"),
      Row.both(false, "a rule on an attribute that is not an HTTP token",
          "{\"tier\": \"pro\", \"rules\": {\"exports\": {\"attribute\": \"x action\", \"equals\": \"export\","
              + " \"capacity\": 2, \"refill\": \"1/m\"}}}"),
      Row.differs("a rule on a path of 101 characters",
          "{\"tier\": \"pro\", \"rules\": {\"long\": {\"path\": \"" + "p".repeat(101) + "\", \"capacity\": 5,"
              + " \"refill\": \"10/h\"}}}",
          true, false, "the registry reads at most TenantInput.MAX_TEXT characters of any text an"
              + " operator sends; the file allows a path of 2048"),
      // Endpoints
      Row.both(true, "an endpoint toward a per-tenant provider, on an allowed host",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": \"https://acme.customers.example/in\"}}"),
      Row.both(true, "an endpoint with its own rate",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": {\"url\": \"https://acme.customers.example/in\","
              + " \"rate\": \"5/s\"}}}"),
      Row.both(false, "an endpoint toward a provider without endpoints: perTenant",
          "{\"tier\": \"pro\", \"endpoints\": {\"payments-api\": \"https://acme.customers.example/in\"}}"),
      Row.both(false, "an endpoint on a host its provider does not allow",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": \"https://evil.example/in\"}}"),
      Row.both(false, "an endpoint over plain http",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": \"http://acme.customers.example/in\"}}"),
      Row.both(false, "an endpoint with credentials in its URL",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": \"https://user:pw@acme.customers.example/in\"}}"),
      Row.both(false, "an endpoint whose rate has no unit",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": {\"url\": \"https://acme.customers.example/in\","
              + " \"rate\": \"5\"}}}"),
      Row.both(false, "an endpoint with an unknown setting",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": {\"url\": \"https://acme.customers.example/in\","
              + " \"weight\": 2}}}"),
      Row.differs("an endpoint with limits of its own",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": {\"url\": \"https://acme.customers.example/in\","
              + " \"limits\": [{\"rate\": \"2/s\"}]}}}",
          true, false, "the registry takes an endpoint's rate only, not a list of limits (a larger gap,"
              + " left for a change of its own)"),
      Row.differs("an endpoint that is sent the provider's auth",
          "{\"tier\": \"pro\", \"endpoints\": {\"hooks\": {\"url\": \"https://acme.customers.example/in\","
              + " \"sendProviderAuth\": true}}}",
          true, false, "sending a partner API's credential to an endpoint is the file's decision only:"
              + " an operator's request to the registry may not grant it"));

  @TestFactory
  Stream<DynamicTest> theFileAndTheRegistryAcceptTheSameTenantSettings() {
    return TABLE.stream().map(row -> DynamicTest.dynamicTest(
        row.why() + (row.differs() == null ? "" : " (differs: " + row.differs() + ")"), () -> {
          assertEquals(row.file(), fileAccepts(row.settings()) == null,
              "the file: " + fileAccepts(row.settings()));
          assertEquals(row.registry(), registryAccepts(row.settings()) == null,
              "the registry: " + registryAccepts(row.settings()));
        }));
  }

  /** Null when the file with this tenant loads, else its problems. */
  private static String fileAccepts(String settings) {
    try {
      ConfigLoader.parse(BASE + "tenants:\n  acme: " + settings + "\n", Map.of());
      return null;
    } catch (ConfigException e) {
      return e.getMessage();
    }
  }

  /** Null when the registry takes this tenant's record from the admin API, else its refusal. */
  private static String registryAccepts(String settings) {
    try {
      TenantInput.checkId("acme");
      TenantInput.fromJson(CONFIG, tree(settings));
      return null;
    } catch (TenantInput.Refused e) {
      return e.getMessage();
    }
  }

  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
