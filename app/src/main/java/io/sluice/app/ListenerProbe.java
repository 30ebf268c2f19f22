package io.sluice.app;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * What listens at Kafka's first bootstrap address, for {@link Preflight} when Kafka's client
 * only timed out: Kafka's client takes a listener that closes the connection during the TLS
 * handshake (TLS against a plaintext port) for a network fault and retries until its timeout,
 * saying nothing the caller can read. The probe connects once, and tries a TLS handshake that
 * trusts any certificate: it learns only whether the port speaks TLS, sends no data, and is
 * closed at once.
 */
final class ListenerProbe {
  /** What the probe found. */
  enum Answer {
    /** The connection was refused: nothing listens there. */
    REFUSED,
    /** The listener completed a TLS handshake. */
    TLS,
    /** The listener closed the connection when it got a TLS hello: it is not TLS. */
    NOT_TLS,
    /** Anything else (no answer in time, an address that does not parse). */
    UNKNOWN
  }

  private ListenerProbe() {}

  /** Probes the first {@code host:port} of {@code bootstrap}, each step within {@code timeoutMillis}. */
  static Answer probe(String bootstrap, int timeoutMillis) {
    String first = bootstrap.split(",")[0].trim();
    int colon = first.lastIndexOf(':');
    if (colon <= 0) {
      return Answer.UNKNOWN;
    }
    String host = first.substring(0, colon).replace("[", "").replace("]", "");
    int port;
    try {
      port = Integer.parseInt(first.substring(colon + 1));
    } catch (NumberFormatException e) {
      return Answer.UNKNOWN;
    }
    try (Socket raw = new Socket()) {
      try {
        raw.connect(new InetSocketAddress(host, port), timeoutMillis);
      } catch (ConnectException e) {
        return Answer.REFUSED;
      }
      raw.setSoTimeout(timeoutMillis);
      try (SSLSocket tls = (SSLSocket) anyCertificate().getSocketFactory()
          .createSocket(raw, host, port, true)) {
        tls.startHandshake();
        return Answer.TLS;
      } catch (SocketTimeoutException e) {
        return Answer.UNKNOWN;
      } catch (IOException e) {
        return Answer.NOT_TLS; // closed, reset or garbled: no TLS server answered the hello
      }
    } catch (IOException | IllegalArgumentException | GeneralSecurityException e) {
      return Answer.UNKNOWN;
    }
  }

  /** A context that accepts any certificate: the probe asks whether TLS is spoken, not by whom. */
  private static SSLContext anyCertificate() throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) { }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) { }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    return context;
  }
}
