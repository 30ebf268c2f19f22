package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider's request settings: method, contentType, static headers, auth, signing and capture.
 * Secrets come from {@code ${env:NAME}}, {@code ${file:PATH}} or the text; a missing one stops
 * start-up naming the field, and no message or {@code toString} shows a value.
 */
class ProviderRequestConfigTest {
  private static final String TOKEN = "tok-5ecr3t-Bearer-value";
  private static final String WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  private static String provider(String settings) {
    return """
        tiers:
          free: { weight: 1 }
        providers:
          partner:
            url: http://localhost:8081/hooks
            rate: 50/s
            quotas:
              free: { capacity: 10, refill: 2/s }
        """ + settings.indent(4);
  }

  private static ConfigException refused(String yaml, Map<String, String> env) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, env));
  }

  @Test
  void shouldBindEveryRequestSettingWithSecretsFromTheEnvironment() {
    SluiceConfig config = ConfigLoader.parse(provider("""
        method: PUT
        contentType: text/plain; charset=utf-8
        headers: { X-Source: sluice }
        auth: { bearer: "${env:PARTNER_TOKEN}" }
        signing: { standardWebhooks: { secrets: ["${env:WHSEC_NEW}", "%s"] } }
        capture: { headers: [X-Request-Id], bodyBytes: 512 }
        """.formatted(WHSEC)), Map.of("PARTNER_TOKEN", TOKEN, "WHSEC_NEW", WHSEC));

    ProviderRequest request = config.providers().get("partner").request();
    assertEquals("PUT", request.method());
    assertEquals("text/plain; charset=utf-8", request.contentType());
    assertEquals(Map.of("X-Source", "sluice"), request.headers());
    ProviderAuth.Bearer bearer = assertInstanceOf(ProviderAuth.Bearer.class, request.auth());
    assertEquals(TOKEN, bearer.token().value());
    assertEquals("${env:PARTNER_TOKEN}", bearer.token().reference());
    assertEquals(List.of(WHSEC, WHSEC), request.signingSecrets().stream().map(Secret::value).toList());
    assertEquals(new ProviderRequest.Capture(List.of("X-Request-Id"), 512), request.capture());
    assertFalse(config.toString().contains(TOKEN), "the config's toString shows no secret");
    assertFalse(config.toString().contains(WHSEC.substring(6)), "nor a signing secret");
  }

  @Test
  void shouldDefaultToAPlainJsonPostWithNoCredential() {
    ProviderRequest request = ConfigLoader.parse(provider(""), Map.of())
        .providers().get("partner").request();

    assertEquals(ProviderRequest.DEFAULT, request);
    assertEquals("POST", request.method());
    assertEquals("application/json", request.contentType());
  }

  @Test
  void shouldReadHeaderAndBasicCredentialsFromFiles(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("key"), "k3y-from-file\n");
    Files.writeString(dir.resolve("pw"), "pa55-from-file");
    SluiceConfig header = ConfigLoader.parse(provider("auth: { header: { name: X-Api-Key, value: \"${file:"
        + dir.resolve("key") + "}\" } }"), Map.of());
    SluiceConfig basic = ConfigLoader.parse(provider("auth: { basic: { user: sluice, password: \"${file:"
        + dir.resolve("pw") + "}\" } }"), Map.of());

    ProviderAuth.Header h = (ProviderAuth.Header) header.providers().get("partner").request().auth();
    assertEquals("X-Api-Key", h.name());
    assertEquals("k3y-from-file", h.value().value(), "one trailing line break dropped");
    ProviderAuth.Basic b = (ProviderAuth.Basic) basic.providers().get("partner").request().auth();
    assertEquals("sluice", b.user().value());
    assertEquals("pa55-from-file", b.password().value());
  }

  @Test
  void shouldStopStartUpNamingTheFieldWhenAVariableOrFileIsMissing(@TempDir Path dir) {
    ConfigException env = refused(provider("auth: { bearer: \"${env:PARTNER_TOKEN}\" }"), Map.of());
    ConfigException file = refused(provider("auth: { basic: { user: u, password: \"${file:"
        + dir.resolve("absent") + "}\" } }"), Map.of());
    ConfigException empty = refused(provider("auth: { bearer: \"${env:PARTNER_TOKEN}\" }"),
        Map.of("PARTNER_TOKEN", ""));

    assertTrue(env.getMessage().contains("providers.partner.auth.bearer: the environment variable "
        + "PARTNER_TOKEN (from ${env:PARTNER_TOKEN}) is not set"), env.getMessage());
    assertTrue(file.getMessage().contains("providers.partner.auth.basic.password: the file "
        + dir.resolve("absent") + " (from ${file:"), file.getMessage());
    assertTrue(empty.getMessage().contains("providers.partner.auth.bearer: the environment variable "
        + "PARTNER_TOKEN (from ${env:PARTNER_TOKEN}) is empty"), empty.getMessage());
  }

  @Test
  void shouldRefuseAMalformedSigningSecretWithoutQuotingIt() {
    String notBase64 = "whsec_not*base64!at-all-0123456789";
    ConfigException e = refused(provider("signing: { standardWebhooks: { secrets: [\"%s\", \"${env:OLD}\"] } }"
        .formatted(notBase64)), Map.of("OLD", "whsec_c2hvcnQ="));

    assertTrue(e.getMessage().contains("providers.partner.signing.standardWebhooks.secrets[0]: the "
        + "part after whsec_ is not base64"), e.getMessage());
    assertTrue(e.getMessage().contains("providers.partner.signing.standardWebhooks.secrets[1]: the "
        + "key after whsec_ is 5 bytes; expected 24 to 64 (in ${env:OLD})"), e.getMessage());
    assertFalse(e.getMessage().contains(notBase64.substring(6)), e.getMessage());
  }

  @Test
  void shouldRefuseCredentialHeadersFromEventsAndStaticHeadersSluiceSets() {
    ConfigException e = refused(provider("""
        forwardHeaders: [Authorization, X-Api-Key, X-Trace, Webhook-Signature]
        auth: { header: { name: X-Api-Key, value: key-literal-0001 } }
        headers: { authorization: xx, Content-Type: text/plain, x-api-key: yy, X-Ok: fine }
        """), Map.of());

    String m = e.getMessage();
    assertTrue(m.contains("providers.partner.forwardHeaders[0]: \"Authorization\" carries a credential"), m);
    assertTrue(m.contains("providers.partner.forwardHeaders[1]: \"X-Api-Key\" carries a credential"), m);
    assertTrue(m.contains("providers.partner.forwardHeaders[3]: \"Webhook-Signature\" is a header that"), m);
    assertFalse(m.contains("forwardHeaders[2]"), m);
    assertTrue(m.contains("providers.partner.headers.authorization: "), m);
    assertTrue(m.contains("providers.partner.headers.Content-Type: "), m);
    assertTrue(m.contains("providers.partner.headers.x-api-key: "), m);
    assertFalse(m.contains("headers.X-Ok"), m);
  }

  @Test
  void shouldValidateTheShapeOfEachSettingNamingIt() {
    String m = refused(provider("""
        method: GET
        contentType: "json"
        headers: { "Bad Name": x, X-Long: "%s" }
        auth: { bearer: bearer-literal-0001, basic: { user: user-0001, password: password-0001 } }
        capture: { bodyBytes: 100000 }
        """.formatted("v".repeat(1025))), Map.of()).getMessage();

    assertTrue(m.contains("providers.partner.method: expected one of POST, PUT, PATCH, DELETE"), m);
    assertTrue(m.contains("providers.partner.contentType: expected a media type"), m);
    assertTrue(m.contains("providers.partner.headers"), m);
    assertTrue(m.contains("providers.partner.headers.X-Long: expected a header value of at most 1024"), m);
    assertTrue(m.contains("providers.partner.auth: expected exactly one of"), m);
    assertTrue(m.contains("providers.partner.capture.bodyBytes: expected a whole number of bytes from 0 to 4096"), m);
  }

  @Test
  void shouldNeverShowALiteralSecretInAnError() {
    String literal = "literal-bearer-5ecret";
    String m = refused(provider("""
        auth: { bearer: %s }
        method: GET
        forwardHeaders: [Authorization]
        """.formatted(literal)), Map.of()).getMessage();

    assertTrue(m.contains("providers.partner.method"), m);
    assertFalse(m.contains(literal), m);
  }

  @Test
  void shouldNeedARestartForAChangedRequestSettingButNotForARotatedSecretFile(@TempDir Path dir)
      throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "first");
    String byFile = provider("auth: { bearer: \"${file:" + token + "}\" }");
    SluiceConfig running = ConfigLoader.parse(byFile, Map.of());
    Files.writeString(token, "rotated");
    SluiceConfig sameFile = ConfigLoader.parse(byFile, Map.of());
    SluiceConfig otherToken = ConfigLoader.parse(provider("auth: { bearer: \"${env:T}\" }\nmethod: PUT"),
        Map.of("T", "x"));

    assertEquals(List.of(), ReloadScope.needingRestart(running, sameFile));
    assertEquals(List.of("providers.partner.method", "providers.partner.auth"),
        ReloadScope.needingRestart(running, otherToken));
  }

  @Test
  void shouldBindOAuth2ClientCredentialsNamingAMissingSecretOrABadUrl() {
    ProviderAuth.OAuth2 o = (ProviderAuth.OAuth2) ConfigLoader.parse(provider("""
        auth:
          oauth2: { tokenUrl: "https://auth.example/token", clientId: sluice,
                    clientSecret: "${env:CLIENT_SECRET}", scope: "hooks:write" }
        """), Map.of("CLIENT_SECRET", "cs-value")).providers().get("partner").request().auth();
    String m = refused(provider("""
        auth:
          oauth2: { tokenUrl: "http://a b/token", clientId: sluice, clientSecret: "${env:CLIENT_SECRET}" }
        """), Map.of()).getMessage();

    assertEquals("https://auth.example/token", o.tokenUrl().toString());
    assertEquals("sluice", o.clientId());
    assertEquals("cs-value", o.clientSecret().value());
    assertEquals("hooks:write", o.scope());
    assertEquals(null, o.audience());
    assertTrue(m.contains("providers.partner.auth.oauth2.clientSecret: the environment variable "
        + "CLIENT_SECRET (from ${env:CLIENT_SECRET}) is not set"), m);
    assertTrue(m.contains("providers.partner.auth.oauth2.tokenUrl: expected an absolute http or https URL"), m);
  }

  @Test
  void shouldRefuseAStoreWithoutItsPasswordNamingIt() {
    String m = refused(provider("tls: { keyStore: /etc/sluice/client.p12 }"), Map.of()).getMessage();

    assertTrue(m.contains("providers.partner.tls"), m);
    assertTrue(m.contains("keyStorePassword"), m);
  }

  @Test
  void shouldLetAnOperatorsCommandLoadWithoutProvidersCredentialsButNeverSendAPlaceholder() {
    String yaml = provider("""
        auth: { bearer: "${env:PARTNER_TOKEN}" }
        signing: { standardWebhooks: { secrets: ["${env:WHSEC_NEW}"] } }
        tls: { keyStore: /nowhere/client.p12, keyStorePassword: "${file:/nowhere/password}" }
        """);

    refused(yaml, Map.of());
    SluiceConfig operator = ConfigLoader.parseForOperator(yaml, Map.of());

    ProviderRequest request = operator.providers().get("partner").request();
    Secret token = assertInstanceOf(ProviderAuth.Bearer.class, request.auth()).token();
    assertFalse(token.isRead());
    IllegalStateException e = assertThrows(IllegalStateException.class, token::value);
    assertTrue(e.getMessage().startsWith("${env:PARTNER_TOKEN} was not read"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> request.signingSecrets().get(0).value());
  }

  @Test
  void shouldStillRefuseAnOperatorsConfigurationForEverythingButUnreadableCredentials() {
    String m = assertThrows(ConfigException.class, () -> ConfigLoader.parseForOperator(provider("""
        auth: { bearer: "${env:PARTNER_TOKEN" }
        signing: { standardWebhooks: { secrets: ["whsec_c2hvcnQ="] } }
        """), Map.of())).getMessage();

    assertTrue(m.contains("providers.partner.auth.bearer: expected ${env:NAME}"), m);
    assertTrue(m.contains("providers.partner.signing.standardWebhooks.secrets[0]"), m);
  }
}
