package io.sluice.app;

import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * Why a Kafka client could not talk to the brokers, read from the exception it failed with, and
 * what to tell the operator: {@link Preflight}'s words. Pure: it reads the cause chain (at most
 * {@value #MAX_DEPTH} deep) and the classes in it, nothing else.
 *
 * <p>A refusal the configuration causes (credentials, TLS, a host name that does not resolve, a
 * client property Kafka rejects, a principal without rights) is a {@linkplain #configurationFault
 * configuration fault}: starting a broker cures none of them, and the command exits 2. Only no
 * answer at all (nothing listens, a firewall drops) is "unreachable", exit 3.
 */
record KafkaFailure(Kind kind, String detail) {
  static final int MAX_DEPTH = 20;
  /** The longest a cause's message is quoted. */
  static final int MAX_DETAIL = 300;

  public enum Kind {
    /** SASL refused the credentials (or the mechanism). */
    SASL_AUTHENTICATION(true),
    /** The TLS handshake failed: TLS against a plaintext listener, an untrusted certificate. */
    TLS(true),
    /** A bootstrap host name that does not resolve. */
    UNKNOWN_HOST(true),
    /** The principal may not describe the cluster. */
    NOT_AUTHORISED(true),
    /** Kafka's client refused its own properties (a bad truststore path, an unknown mechanism). */
    CLIENT_CONFIG(true),
    /** No answer in time: nothing listens there, or the network drops the packets. */
    NO_ANSWER(false);

    private final boolean configurationFault;

    Kind(boolean configurationFault) {
      this.configurationFault = configurationFault;
    }
  }

  /** Whether the configuration, not a missing server, is to blame (exit 2, not 3). */
  public boolean configurationFault() {
    return kind.configurationFault;
  }

  /** Reads the failure of a client at {@code bootstrap}. */
  public static KafkaFailure of(Throwable error) {
    Kind kind = Kind.NO_ANSWER;
    Throwable named = error;
    Throwable t = error;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      Kind found = kindOf(t);
      if (found != null) {
        kind = found;
        named = t;
        if (found != Kind.CLIENT_CONFIG) {
          break; // the most specific cause; a ConfigException may wrap an UnknownHost below
        }
      }
    }
    return new KafkaFailure(kind, clean(deepest(named).toString()));
  }

  /**
   * This failure read again knowing what listens at the bootstrap address ({@link ListenerProbe}):
   * no answer from a port that closes at a TLS hello while TLS is configured, or from a TLS port
   * while it is not, is a TLS fault; from a refused port, nothing listens. Any other failure, or
   * answer, stays as it is.
   *
   * @param tlsConfigured whether {@code security.protocol} is SSL or SASL_SSL
   */
  public KafkaFailure given(boolean tlsConfigured, ListenerProbe.Answer answer, String address) {
    if (kind != Kind.NO_ANSWER) {
      return this;
    }
    return switch (answer) {
      case NOT_TLS -> tlsConfigured ? new KafkaFailure(Kind.TLS, "the listener at " + address
          + " closed the connection at the TLS hello: it is not a TLS listener") : this;
      case TLS -> tlsConfigured ? this : new KafkaFailure(Kind.TLS, "the listener at " + address
          + " speaks TLS, and security.protocol is not SSL or SASL_SSL");
      case REFUSED -> new KafkaFailure(Kind.NO_ANSWER, "nothing listens at " + address
          + ": the connection was refused");
      case UNKNOWN -> this;
    };
  }

  private static Kind kindOf(Throwable t) {
    if (t instanceof SaslAuthenticationException) {
      return Kind.SASL_AUTHENTICATION;
    }
    if (t instanceof SslAuthenticationException || t instanceof SSLException) {
      return Kind.TLS;
    }
    if (t instanceof UnknownHostException || (t instanceof ConfigException
        && String.valueOf(t.getMessage()).contains("No resolvable bootstrap urls"))) {
      return Kind.UNKNOWN_HOST;
    }
    if (t instanceof AuthorizationException) {
      return Kind.NOT_AUTHORISED;
    }
    if (t instanceof ConfigException) {
      return Kind.CLIENT_CONFIG;
    }
    if (t instanceof TimeoutException || t instanceof org.apache.kafka.common.errors.TimeoutException) {
      return Kind.NO_ANSWER;
    }
    return null;
  }

  /** What the operator reads: what failed, what to check, and the cause's own words. */
  public String message(String bootstrap) {
    String at = "Kafka at " + bootstrap;
    String what = switch (kind) {
      case SASL_AUTHENTICATION -> at + " refused Sluice's SASL credentials.\n"
          + "  Check kafka.properties sasl.mechanism and sasl.jaas.config (the user, its "
          + "password, and that the broker has it for that mechanism).";
      case TLS -> at + ": the TLS handshake failed.\n"
          + "  Check that kafka.properties security.protocol matches the listener (SSL or "
          + "SASL_SSL against a TLS listener, PLAINTEXT or SASL_PLAINTEXT against a plain one) "
          + "and that ssl.truststore.* trusts the broker's certificate.";
      case UNKNOWN_HOST -> "the host of kafka.bootstrap (" + bootstrap + ") does not resolve.\n"
          + "  Check its spelling, or SLUICE_KAFKA__BOOTSTRAP=host:port, and DNS.";
      case NOT_AUTHORISED -> at + " refused Sluice's principal the right to describe the "
          + "cluster.\n  Grant it (ACLs; see docs/operations.md) or use another principal.";
      case CLIENT_CONFIG -> "Kafka's client refused the configuration of " + at + ".\n"
          + "  Check kafka.properties.";
      case NO_ANSWER -> "Kafka is not reachable at " + bootstrap + ": it did not answer.\n"
          + "  Start a broker there (for example `docker compose up -d kafka` from the Sluice "
          + "repository), or point Sluice at yours with kafka.bootstrap in the config file or "
          + "SLUICE_KAFKA__BOOTSTRAP=host:port.\n"
          + "  To try Sluice without any server, run `java -jar lab/target/sluice-lab.jar "
          + "demo`: it starts its own.";
    };
    return what + "\n  (" + detail + ")";
  }

  private static Throwable deepest(Throwable error) {
    Throwable t = error;
    for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < MAX_DEPTH; depth++) {
      t = t.getCause();
    }
    return t;
  }

  /** At most {@value #MAX_DETAIL} characters, without control characters. */
  static String clean(String text) {
    String cut = text.length() > MAX_DETAIL ? text.substring(0, MAX_DETAIL) + "..." : text;
    return cut.replaceAll("\\p{Cntrl}", " ");
  }
}
