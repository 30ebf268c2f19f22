package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedisUriTest {
  @Test
  void shouldReadAStandaloneUriWithoutCredentials() {
    RedisUri uri = RedisUri.parse("redis://localhost:6379");

    assertEquals(new RedisUri(false, false, null, null,
        List.of(new RedisUri.Node("localhost", 6379)), 0), uri);
  }

  @Test
  void shouldReadUserPasswordTlsAndDatabase() {
    RedisUri uri = RedisUri.parse("rediss://sluice:p%40ss%3Aw0rd@cache.internal:6380/2");

    assertTrue(uri.tls());
    assertFalse(uri.cluster());
    assertEquals("sluice", uri.user());
    assertEquals("p@ss:w0rd", uri.password());
    assertEquals(List.of(new RedisUri.Node("cache.internal", 6380)), uri.nodes());
    assertEquals(2, uri.database());
  }

  @Test
  void shouldReadAPasswordForTheDefaultUserAndDefaultThePort() {
    RedisUri withColon = RedisUri.parse("redis://:hunter2@h");
    RedisUri withoutColon = RedisUri.parse("redis://hunter2@h");

    assertNull(withColon.user());
    assertEquals("hunter2", withColon.password());
    assertEquals(withColon, withoutColon);
    assertEquals(6379, withColon.nodes().get(0).port());
  }

  @Test
  void shouldApplyTheCredentialsOfAClusterUriToEverySeed() {
    RedisUri uri = RedisUri.parse("rediss-cluster://u:pw@10.0.0.1:7000, 10.0.0.2:7001,[::1]:7002");

    assertTrue(uri.cluster());
    assertTrue(uri.tls());
    assertEquals("u", uri.user());
    assertEquals("pw", uri.password());
    assertEquals(List.of(new RedisUri.Node("10.0.0.1", 7000), new RedisUri.Node("10.0.0.2", 7001),
        new RedisUri.Node("::1", 7002)), uri.nodes());
  }

  @Test
  void shouldShowItselfWithTheUserInfoMasked() {
    assertEquals("redis-cluster://***@a:1,b:2",
        RedisUri.parse("redis-cluster://u:topsecret@a:1,b:2").toString());
    assertEquals("redis://h:6379/3", RedisUri.parse("redis://h/3").toString());
    assertEquals("rediss://***@h:1", Secrets.uri("rediss://u:topsecret@h:1"));
    assertEquals("redis://h:1", Secrets.uri("redis://h:1"));
  }

  @Test
  void shouldExplainWhatIsWrongWithoutShowingThePassword() {
    for (String bad : List.of("redis://u:topsecret@h:0", "redis://u:topsecret@h1:1,h2:2",
        "redis-cluster://u:topsecret@h:1/2", "redis://u:topsecret@:1", "mongo://u:topsecret@h",
        "redis://u:topsecret@h:1?ssl=true", "redis://u:top%ZZsecret@h:1")) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> RedisUri.parse(bad), bad);
      assertFalse(e.getMessage().contains("topsecret"), e.getMessage());
      assertFalse(e.getMessage().contains("top%ZZsecret"), e.getMessage());
    }
  }

  @Test
  void shouldTellSecretKafkaPropertiesFromOthers() {
    for (String secret : List.of("sasl.jaas.config", "ssl.keystore.password", "ssl.key.password",
        "ssl.truststore.password", "ssl.keystore.key", "sasl.oauthbearer.client.secret",
        "sasl.login.token.endpoint.credentials")) {
      assertTrue(Secrets.isSecretProperty(secret), secret);
    }
    for (String plain : List.of("security.protocol", "sasl.mechanism", "ssl.truststore.location",
        "ssl.keystore.type", "linger.ms")) {
      assertFalse(Secrets.isSecretProperty(plain), plain);
    }
  }

  @Test
  void shouldMaskLikelySecretsInTextItCannotParse() {
    assertEquals("at redis://***@h:1 and x required username=\"u\" password=***;",
        Secrets.scrubLikely("at redis://u:pw@h:1 and x required username=\"u\" password=\"p w\";"));
  }
}
