package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.UnknownHostException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Preflight's reading of a Kafka client's failure, on the exceptions the admin client throws. */
class KafkaFailureTest {
  private static final String AT = "kafka-1:9093";

  @Test
  @DisplayName("refused SASL credentials are a configuration fault that names SASL, not 'start a broker'")
  void sasl() {
    KafkaFailure f = KafkaFailure.of(new ExecutionException(new SaslAuthenticationException(
        "Authentication failed during authentication due to invalid credentials with SASL "
            + "mechanism SCRAM-SHA-512")));
    assertEquals(KafkaFailure.Kind.SASL_AUTHENTICATION, f.kind());
    assertTrue(f.configurationFault());
    String message = f.message(AT);
    assertTrue(message.startsWith("Kafka at kafka-1:9093 refused Sluice's SASL credentials"), message);
    assertTrue(message.contains("invalid credentials with SASL mechanism SCRAM-SHA-512"), message);
    assertFalse(message.contains("Start a broker"), message);
  }

  @Test
  @DisplayName("a failed TLS handshake (TLS against a plaintext listener) names TLS and security.protocol")
  void tls() {
    KafkaFailure f = KafkaFailure.of(new ExecutionException(new SslAuthenticationException(
        "SSL handshake failed", new SSLHandshakeException("Remote host terminated the handshake"))));
    assertEquals(KafkaFailure.Kind.TLS, f.kind());
    assertTrue(f.configurationFault());
    assertTrue(f.message(AT).contains("TLS handshake failed"), f.message(AT));
    assertTrue(f.message(AT).contains("security.protocol"), f.message(AT));
  }

  @Test
  @DisplayName("a bootstrap host that does not resolve is named, as the client reports it at creation")
  void unknownHost() {
    KafkaFailure f = KafkaFailure.of(new KafkaException("Failed to create new KafkaAdminClient",
        new ConfigException("No resolvable bootstrap urls given in bootstrap.servers")));
    assertEquals(KafkaFailure.Kind.UNKNOWN_HOST, f.kind());
    assertTrue(f.configurationFault());
    assertTrue(f.message("kafak:9092").startsWith(
        "the host of kafka.bootstrap (kafak:9092) does not resolve"), f.message("kafak:9092"));
    assertEquals(KafkaFailure.Kind.UNKNOWN_HOST,
        KafkaFailure.of(new KafkaException(new UnknownHostException("kafak"))).kind());
  }

  @Test
  @DisplayName("other client property errors and missing rights are configuration faults too")
  void clientConfigAndRights() {
    assertEquals(KafkaFailure.Kind.CLIENT_CONFIG, KafkaFailure.of(new KafkaException(
        "Failed to create new KafkaAdminClient", new ConfigException("Invalid value x"))).kind());
    KafkaFailure rights = KafkaFailure.of(new ExecutionException(
        new ClusterAuthorizationException("Cluster authorization failed.")));
    assertEquals(KafkaFailure.Kind.NOT_AUTHORISED, rights.kind());
    assertTrue(rights.configurationFault());
  }

  @Test
  @DisplayName("no answer in time is the one 'unreachable' (exit 3): start a broker")
  void timeout() {
    for (Exception e : new Exception[] {
        new ExecutionException(new TimeoutException("Timed out waiting for a node assignment")),
        new java.util.concurrent.TimeoutException(), new RuntimeException("anything else")}) {
      KafkaFailure f = KafkaFailure.of(e);
      assertEquals(KafkaFailure.Kind.NO_ANSWER, f.kind(), e.toString());
      assertFalse(f.configurationFault());
      assertTrue(f.message(AT).contains("Start a broker there"), f.message(AT));
    }
  }

  @Test
  @DisplayName("the cause's words are bounded and stripped of control characters")
  void detailBounded() {
    KafkaFailure f = KafkaFailure.of(new SaslAuthenticationException(
        "bad\nforged line\u001b" + "x".repeat(1000)));
    assertTrue(f.detail().length() <= KafkaFailure.MAX_DETAIL + 3, f.detail());
    assertFalse(f.detail().contains("\n") || f.detail().contains("\u001b"), f.detail());
  }

  @Test
  @DisplayName("a timeout read with the listener probe: TLS hello refused while TLS is configured, or a TLS port without it, is TLS; a refused port is nothing listening")
  void timeoutGivenTheProbe() {
    KafkaFailure timedOut = KafkaFailure.of(new TimeoutException("Timed out waiting for a node"));

    KafkaFailure tlsOnPlain = timedOut.given(true, ListenerProbe.Answer.NOT_TLS, AT);
    assertEquals(KafkaFailure.Kind.TLS, tlsOnPlain.kind());
    assertTrue(tlsOnPlain.configurationFault());
    assertTrue(tlsOnPlain.message(AT).contains("it is not a TLS listener"), tlsOnPlain.message(AT));
    KafkaFailure plainOnTls = timedOut.given(false, ListenerProbe.Answer.TLS, AT);
    assertEquals(KafkaFailure.Kind.TLS, plainOnTls.kind());
    assertTrue(plainOnTls.message(AT).contains("speaks TLS"), plainOnTls.message(AT));
    KafkaFailure refused = timedOut.given(true, ListenerProbe.Answer.REFUSED, AT);
    assertEquals(KafkaFailure.Kind.NO_ANSWER, refused.kind());
    assertTrue(refused.message(AT).contains("nothing listens at kafka-1:9093"), refused.message(AT));
    assertEquals(timedOut, timedOut.given(true, ListenerProbe.Answer.TLS, AT), "TLS spoken both sides");
    assertEquals(timedOut, timedOut.given(false, ListenerProbe.Answer.NOT_TLS, AT));
    assertEquals(timedOut, timedOut.given(true, ListenerProbe.Answer.UNKNOWN, AT));
    KafkaFailure sasl = KafkaFailure.of(new SaslAuthenticationException("no"));
    assertEquals(sasl, sasl.given(true, ListenerProbe.Answer.NOT_TLS, AT), "a cause the client named stays");
  }
}
