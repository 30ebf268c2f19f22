package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code endpoints: perTenant}: what it binds to, and every mistake named by its field. */
class PerTenantEndpointsConfigTest {
  private static final String CONFIG = """
      tiers:
        free: { weight: 1 }
      providers:
        hooks:
          endpoints: perTenant
          rate: 2/s
          PROVIDER
          quotas:
            free: { capacity: 10, refill: 2/s }
      tenants:
        acme:
          tier: free
          endpoints:
            hooks: ACME
      """;

  private static SluiceConfig load(String provider, String acme) {
    return ConfigLoader.parse(CONFIG.replace("PROVIDER", provider).replace("ACME", acme), Map.of());
  }

  private static String error(String provider, String acme) {
    return assertThrows(ConfigException.class, () -> load(provider, acme)).getMessage();
  }

  @Test
  void shouldGiveEachTenantItsEndpointWithTheProvidersLimitsOrItsOwn() {
    SluiceConfig config = load("", "{url: \"https://acme.example/hooks\", rate: 5/s}");
    ProviderConfig hooks = config.providers().get("hooks");

    assertEquals(true, hooks.perTenant());
    TenantEndpoint acme = config.endpointOf("hooks", "acme").orElseThrow();
    assertEquals(URI.create("https://acme.example/hooks"), acme.url());
    assertEquals(List.of(ProviderLimit.rate(5)), acme.limitsUnder(hooks));
    assertEquals(List.of(ProviderLimit.rate(2)),
        new TenantEndpoint(URI.create("https://b.example")).limitsUnder(hooks));
    assertEquals(Optional.empty(), config.endpointOf("hooks", "nobody"));
  }

  @Test
  void shouldNeedARestartForAChangedTotalRateButNotForAnEndpointsRate() {
    SluiceConfig running = load("totalRate: 50/s", "https://acme.example/hooks");

    assertEquals(List.of("providers.hooks.totalRate"), ReloadScope.needingRestart(running,
        load("totalRate: 40/s", "https://acme.example/hooks")));
    assertEquals(List.of("providers.hooks.totalRate"), ReloadScope.needingRestart(running,
        load("", "https://acme.example/hooks")));
    assertEquals(List.of(), ReloadScope.needingRestart(running,
        load("totalRate: 50/s", "{url: \"https://acme.example/hooks\", rate: 5/s}")));
  }

  @Test
  void shouldTakeATotalRateAcrossTheEndpoints() {
    assertEquals(Optional.of(new Rate(500)), load("totalRate: 500/s", "https://acme.example/hooks")
        .providers().get("hooks").endpoints().totalRate());
    assertEquals(Optional.of(new Rate(0.5)), load("totalRate: 30/m", "https://acme.example/hooks")
        .providers().get("hooks").endpoints().totalRate());
  }

  @Test
  void shouldRefuseATotalRateThatIsNotAPositiveRate() {
    assertEquals("providers.hooks.totalRate: expected a rate above zero like \"50/s\", \"600/m\" "
        + "or \"10/h\", got \"0/s\"", error("totalRate: 0/s", "https://acme.example/hooks"));
    assertEquals("providers.hooks.totalRate: expected a rate like \"50/s\", \"600/m\" or "
        + "\"10/h\", got \"lots\"", error("totalRate: lots", "https://acme.example/hooks"));
  }

  @Test
  void shouldDefaultToAGuardedEndpointThatWaitsWhileDisabled() {
    ProviderEndpoints e = load("", "https://acme.example/hooks").providers().get("hooks")
        .endpoints();

    assertEquals(false, e.allowPrivateNetworks());
    assertEquals(List.of(), e.allowedHosts());
    assertEquals(Optional.empty(), e.totalRate());
    assertEquals(Duration.ofMinutes(5), e.disableAfter());
    assertEquals(Duration.ofMinutes(1), e.probeAfter());
    assertEquals(ProviderEndpoints.WhileDisabled.WAIT, e.whileDisabled());
  }

  @Test
  void shouldKeepAProviderWithOneUrlAsItWas() {
    SluiceConfig config = ConfigLoader.parse("""
        tiers: { free: { weight: 1 } }
        providers:
          mail: { url: "http://localhost:8081/mail", rate: 5/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        """, Map.of());

    assertEquals(ProviderEndpoints.SINGLE, config.providers().get("mail").endpoints());
  }

  @Test
  void shouldRefuseAnInternalEndpointUnlessPrivateNetworksAreAllowed() {
    assertEquals("tenants.acme.endpoints.hooks: host \"169.254.169.254\" is link-local "
        + "(169.254.0.0/16); per-tenant endpoints may not reach internal addresses unless "
        + "providers.hooks.allowPrivateNetworks is true",
        error("allowPlainHttp: true", "http://169.254.169.254/latest/meta-data"));
    assertEquals("tenants.acme.endpoints.hooks: host \"2130706433\" is a numeric host that is not "
        + "a plain dotted quad (\"2130706433\"): write the address as four decimal numbers, like "
        + "203.0.113.7; per-tenant endpoints may not reach internal addresses unless "
        + "providers.hooks.allowPrivateNetworks is true", error("", "https://2130706433/"));

    assertEquals(URI.create("http://localhost:8081/h"), load("allowPrivateNetworks: true\n    allowPlainHttp: true",
        "http://localhost:8081/h").endpointOf("hooks", "acme").orElseThrow().url());
  }

  @Test
  @DisplayName("the file's endpoints are checked as the registry's (issue 33): https unless allowPlainHttp, its own switch; no user information")
  void shouldCheckTheFilesEndpointsAsTheRegistrys() {
    assertEquals("tenants.acme.endpoints.hooks: expected https, got \"http://acme.example/in\" (http "
        + "only toward providers with allowPlainHttp: true)", error("", "http://acme.example/in"));
    assertEquals("tenants.acme.endpoints.hooks: expected https, got \"http://localhost:8081/h\" (http "
        + "only toward providers with allowPlainHttp: true)",
        error("allowPrivateNetworks: true", "http://localhost:8081/h"), "the guard off does not allow http");
    assertTrue(error("", "https://user:pw@acme.example/in")
        .startsWith("tenants.acme.endpoints.hooks: has user information (user:password@)"));
    assertEquals(URI.create("http://acme.example/in"), load("allowPlainHttp: true",
        "http://acme.example/in").endpointOf("hooks", "acme").orElseThrow().url(),
        "http with the guard still on");
  }

  @Test
  void shouldRefuseAHostOutsideTheAllowedOnes() {
    assertEquals("tenants.acme.endpoints.hooks: host \"acme.example\" is not in "
        + "providers.hooks.allowedHosts (*.customers.example)",
        error("allowedHosts: [\"*.customers.example\"]", "https://acme.example/hooks"));
    assertTrue(error("allowedHosts: [\"*\"]", "https://acme.example/hooks").startsWith(
        "providers.hooks.allowedHosts[0]: expected a host like api.example.com, or "
        + "*.example.com for the hosts below it, got \"*\"\n"));
  }

  @Test
  void shouldNameEachMistakeByItsField() {
    assertEquals("tenants.acme.endpoints.hooks.rate: expected a rate above zero like \"50/s\", "
        + "\"600/m\" or \"10/h\", got \"0/s\"",
        error("", "{url: \"https://acme.example/hooks\", rate: 0/s}"));
    assertEquals("tenants.acme.endpoints.hooks.limits: cannot be given together with rate: rate: "
        + "R means limits: [{rate: R}], so put the rate in limits",
        error("", "{url: \"https://acme.example/hooks\", rate: 1/s, limits: [{rate: 1/s}]}"));
    assertEquals("providers.hooks.probeAfter: must be longer than 0ms, got 0ms",
        error("probeAfter: 0s", "https://acme.example/hooks"));
    assertEquals("providers.hooks.whileDisabled: expected one of wait, dead_letter, got \"drop\"",
        error("whileDisabled: drop", "https://acme.example/hooks"));
  }

  @Test
  void shouldRefuseAnEndpointTowardAProviderWithOneUrl() {
    String config = """
        tiers: { free: { weight: 1 } }
        providers:
          mail: { url: "http://localhost:8081/mail", rate: 5/s, totalRate: 9/s, quotas: { free: { capacity: 1, refill: 1/s } } }
        tenants:
          acme: { tier: free, endpoints: { mail: "https://acme.example/mail" } }
        """;
    assertEquals("providers.mail.totalRate: applies to per-tenant endpoints only; add endpoints: "
        + "perTenant, or remove it\n"
        + "tenants.acme.endpoints.mail: \"mail\" is not a provider with endpoints: perTenant "
        + "(those: none)",
        assertThrows(ConfigException.class, () -> ConfigLoader.parse(config, Map.of()))
            .getMessage());
  }
}
