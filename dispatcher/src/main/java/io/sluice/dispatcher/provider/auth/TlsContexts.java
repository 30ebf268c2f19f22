package io.sluice.dispatcher.provider.auth;

import io.sluice.config.ProviderTls;
import io.sluice.config.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS context of one provider's client ({@code tls:}): its key store's key and certificate
 * presented when the provider asks for a client certificate, its trust store's certificates the
 * only ones the provider's certificate may chain to (the JVM's defaults for what is not set).
 */
public final class TlsContexts {
  private TlsContexts() {}

  /**
   * @throws IllegalStateException (naming the file, never a password) when a store cannot be
   *                               read; the configuration checked them at start
   */
  public static SSLContext of(ProviderTls tls) {
    try {
      KeyManagerFactory keys = null;
      if (tls.keyStore() != null) {
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(load(tls.keyStore(), tls.keyStorePassword()),
            tls.keyStorePassword().value().toCharArray());
      }
      TrustManagerFactory trust = null;
      if (tls.trustStore() != null) {
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(load(tls.trustStore(), tls.trustStorePassword()));
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys == null ? null : keys.getKeyManagers(),
          trust == null ? null : trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build the provider's TLS context ("
          + e.getClass().getSimpleName() + ")");
    }
  }

  private static KeyStore load(Path file, Secret password) throws GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, password.value().toCharArray());
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " (" + e.getClass().getSimpleName()
          + ")", new IOException(e.getClass().getSimpleName()));
    }
  }
}
