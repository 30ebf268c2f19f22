package io.sluice.config;

import java.util.List;
import java.util.Map;

/**
 * How a provider's calls are made and what is kept of its answers: the request's method,
 * content type and static headers, its credential, its signature, and what to capture.
 *
 * @param method         POST, PUT, PATCH or DELETE
 * @param contentType    the request's {@code Content-Type}
 * @param headers        static headers sent on every call, by name as written
 * @param auth           the credential; {@link ProviderAuth#NONE} for none
 * @param signingSecrets Standard Webhooks secrets ({@code whsec_...}), one signature each; empty
 *                       for unsigned calls
 * @param capture        what of an answer outcomes and dead letters carry
 * @param tls            mutual TLS toward the provider; null for the JVM's defaults
 */
public record ProviderRequest(
    String method,
    String contentType,
    Map<String, String> headers,
    ProviderAuth auth,
    List<Secret> signingSecrets,
    Capture capture,
    ProviderTls tls) {
  public static final ProviderRequest DEFAULT = new ProviderRequest(
      ConfigDefaults.METHOD, ConfigDefaults.CONTENT_TYPE, Map.of(), ProviderAuth.NONE, List.of(),
      Capture.NONE, null);

  public ProviderRequest {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    auth = auth == null ? ProviderAuth.NONE : auth;
    signingSecrets = signingSecrets == null ? List.of() : List.copyOf(signingSecrets);
    capture = capture == null ? Capture.NONE : capture;
  }

  /**
   * What of an answer is kept.
   *
   * @param headers   response header names (case-insensitive) whose values are kept
   * @param bodyBytes the longest body excerpt kept, in bytes; 0 reads no body
   */
  public record Capture(List<String> headers, int bodyBytes) {
    public static final Capture NONE = new Capture(List.of(), 0);

    public Capture {
      headers = headers == null ? List.of() : List.copyOf(headers);
    }
  }
}
