package io.sluice.config;

import java.nio.file.Path;

/**
 * Mutual TLS toward one provider ({@code tls:}): the client certificate it presents and the
 * certificates it trusts, each a PKCS#12 file read at start (a change needs a restart).
 *
 * @param keyStore           the client's key and certificate chain; null to present none
 * @param keyStorePassword   its password; null with no key store
 * @param trustStore         the certificates (or CA) the provider's certificate must chain to;
 *                           null for the JVM's default trust store
 * @param trustStorePassword its password; null with no trust store
 */
public record ProviderTls(Path keyStore, Secret keyStorePassword, Path trustStore,
    Secret trustStorePassword) {}
