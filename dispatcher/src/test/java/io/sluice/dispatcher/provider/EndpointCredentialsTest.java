package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderEndpointsBuilder.perTenant;
import static io.sluice.config.ProviderRequestBuilder.request;
import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderConfig;
import io.sluice.config.Secret;
import io.sluice.config.TenantEndpoint;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A partner API's credential goes to the partner, not to a tenant's server (issue 33): before,
 * {@code HttpProvider.toward} gave every tenant's endpoint the provider's {@code auth}.
 */
class EndpointCredentialsTest {
  private static final ProviderCall CALL =
      new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1);

  private static HttpProvider provider(ProviderAuth auth) {
    ProviderConfig config = providerAt("https://partner.example/api")
        .request(request().auth(auth).build()).endpoints(perTenant().build()).build();
    return new HttpProvider(config, HttpProvider.defaultClient(Duration.ofSeconds(5)));
  }

  private static TenantEndpoint endpoint(boolean sendProviderAuth) {
    return new TenantEndpoint(URI.create("https://hooks.acme.example/in"), List.of(),
        Optional.empty(), sendProviderAuth);
  }

  @Test
  void aTenantsEndpointIsNotSentTheProvidersBearerToken() {
    HttpProvider partner = provider(new ProviderAuth.Bearer(Secret.literal("partner-token")));

    HttpRequest toPartner = partner.request(CALL);
    HttpRequest toTenant = partner.toward(endpoint(false)).request(CALL);

    assertEquals(Optional.of("Bearer partner-token"), toPartner.headers().firstValue("Authorization"),
        "the provider's own URL gets its credential");
    assertEquals(Optional.empty(), toTenant.headers().firstValue("Authorization"),
        "a tenant's endpoint does not");
  }

  @Test
  void aTenantsEndpointIsNotSentTheProvidersOwnHeaderCredential() {
    HttpProvider partner = provider(new ProviderAuth.Header("X-Api-Key",
        Secret.literal("partner-key")));

    HttpRequest toTenant = partner.toward(URI.create("https://hooks.acme.example/in")).request(CALL);

    assertTrue(toTenant.headers().map().values().stream().flatMap(List::stream)
        .noneMatch(v -> v.contains("partner-key")), toTenant.headers().map().toString());
  }

  @Test
  void anEndpointTheFileSaysIsThePartnersGetsIt() {
    HttpProvider partner = provider(new ProviderAuth.Bearer(Secret.literal("partner-token")));

    HttpRequest toEndpoint = partner.toward(endpoint(true)).request(CALL);

    assertEquals(Optional.of("Bearer partner-token"),
        toEndpoint.headers().firstValue("Authorization"));
  }
}
