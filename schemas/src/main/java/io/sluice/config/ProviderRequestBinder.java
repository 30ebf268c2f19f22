package io.sluice.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Binds a provider's request settings ({@code method}, {@code contentType}, {@code headers},
 * {@code auth}, {@code signing}, {@code capture}) to a {@link ProviderRequest}, resolving every
 * secret ({@link Secret#resolve}) against the environment. An unset variable, an unreadable
 * file or a malformed signing secret is a {@link Problem} naming the field; the message names
 * the reference, never a value.
 */
final class ProviderRequestBinder {
  private final List<Problem> problems;
  private final Map<String, String> env;
  /** False for the operator's commands, which never call a provider ({@link ConfigLoader#loadForOperator}). */
  private final boolean credentialsNeeded;

  ProviderRequestBinder(List<Problem> problems, Map<String, String> env,
      boolean credentialsNeeded) {
    this.problems = problems;
    this.env = env;
    this.credentialsNeeded = credentialsNeeded;
  }

  ProviderRequest bind(JsonNode provider, String path) {
    Map<String, String> headers = new LinkedHashMap<>();
    provider.path("headers").properties().forEach(e -> headers.put(e.getKey(), e.getValue().asText()));
    return new ProviderRequest(
        provider.path("method").asText(ConfigDefaults.METHOD),
        provider.path("contentType").asText(ConfigDefaults.CONTENT_TYPE),
        headers,
        auth(provider.path("auth"), Problem.join(path, "auth")),
        signing(provider.path("signing").path("standardWebhooks").path("secrets"),
            Problem.join(path, "signing.standardWebhooks.secrets")),
        capture(provider.path("capture")),
        provider.has("tls") ? tls(provider.get("tls"), Problem.join(path, "tls")) : null);
  }

  /**
   * The TLS settings, each store loaded now with its password: a missing file, a wrong password
   * or a file that is not PKCS#12 stops start-up naming the field (never the password).
   */
  private ProviderTls tls(JsonNode tls, String path) {
    Path keyStore = tls.has("keyStore") ? Path.of(tls.get("keyStore").asText()) : null;
    Path trustStore = tls.has("trustStore") ? Path.of(tls.get("trustStore").asText()) : null;
    Secret keyPassword = keyStore == null ? null
        : secret(tls.get("keyStorePassword"), Problem.join(path, "keyStorePassword"));
    Secret trustPassword = trustStore == null ? null
        : secret(tls.get("trustStorePassword"), Problem.join(path, "trustStorePassword"));
    check(keyStore, keyPassword, Problem.join(path, "keyStore"));
    check(trustStore, trustPassword, Problem.join(path, "trustStore"));
    return new ProviderTls(keyStore, keyPassword, trustStore, trustPassword);
  }

  private void check(Path store, Secret password, String path) {
    if (store == null || !credentialsNeeded) {
      return; // an operator's command never opens a TLS store
    }
    try (InputStream in = Files.newInputStream(store)) {
      KeyStore.getInstance("PKCS12").load(in, password.value().toCharArray());
    } catch (NoSuchFileException e) {
      problems.add(new Problem(path, "the file " + store + " does not exist"));
    } catch (IOException | GeneralSecurityException e) {
      problems.add(new Problem(path, "cannot read " + store + " as a PKCS#12 store with its "
          + "password (" + e.getClass().getSimpleName() + ")"));
    }
  }

  private ProviderAuth auth(JsonNode auth, String path) {
    if (auth.has("bearer")) {
      return new ProviderAuth.Bearer(secret(auth.get("bearer"), Problem.join(path, "bearer")));
    }
    if (auth.has("header")) {
      JsonNode h = auth.get("header");
      return new ProviderAuth.Header(h.path("name").asText(),
          secret(h.get("value"), Problem.join(path, "header.value")));
    }
    if (auth.has("basic")) {
      JsonNode b = auth.get("basic");
      return new ProviderAuth.Basic(secret(b.get("user"), Problem.join(path, "basic.user")),
          secret(b.get("password"), Problem.join(path, "basic.password")));
    }
    if (auth.has("oauth2")) {
      JsonNode o = auth.get("oauth2");
      String at = Problem.join(path, "oauth2");
      return new ProviderAuth.OAuth2(tokenUrl(o.path("tokenUrl").asText(), Problem.join(at, "tokenUrl")),
          o.path("clientId").asText(), secret(o.get("clientSecret"), Problem.join(at, "clientSecret")),
          o.has("scope") ? o.get("scope").asText() : null,
          o.has("audience") ? o.get("audience").asText() : null);
    }
    return ProviderAuth.NONE;
  }

  private URI tokenUrl(String text, String path) {
    try {
      URI uri = new URI(text);
      if (uri.getHost() != null && uri.getScheme() != null
          && uri.getScheme().toLowerCase(Locale.ROOT).startsWith("http")) {
        return uri;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    problems.add(new Problem(path, "expected an absolute http or https URL with a host, got "
        + ConfigSchema.quoted(Secrets.uri(text))));
    return URI.create("http://invalid");
  }

  private List<Secret> signing(JsonNode secrets, String path) {
    List<Secret> bound = new ArrayList<>();
    for (int i = 0; i < secrets.size(); i++) {
      String at = Problem.index(path, i);
      Secret secret = secret(secrets.get(i), at);
      if (!secret.isRead()) {
        bound.add(secret);
        continue;
      }
      try {
        WebhookSecret.key(secret.value());
      } catch (IllegalArgumentException e) {
        problems.add(new Problem(at, e.getMessage() + " (in " + secret.reference() + ")"));
      }
      bound.add(secret);
    }
    return bound;
  }

  private static ProviderRequest.Capture capture(JsonNode capture) {
    List<String> names = new ArrayList<>();
    capture.path("headers").forEach(h -> names.add(h.asText()));
    return new ProviderRequest.Capture(names, capture.path("bodyBytes").asInt(0));
  }

  /** The secret, or a placeholder after recording the problem (so every problem is reported). */
  private Secret secret(JsonNode node, String path) {
    try {
      return Secret.resolve(node.asText(), env);
    } catch (IllegalArgumentException e) {
      if (!credentialsNeeded && Secret.isReference(node.asText())) {
        return Secret.unread(node.asText());
      }
      problems.add(new Problem(path, e.getMessage()));
      return Secret.literal("whsec_" + "A".repeat(32));
    }
  }
}
