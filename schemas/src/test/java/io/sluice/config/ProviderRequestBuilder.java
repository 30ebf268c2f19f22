package io.sluice.config;

import java.util.List;
import java.util.Map;

/**
 * A provider's request settings for a test, which names only what it sets. Unset, a request is
 * the default one ({@link ProviderRequest#DEFAULT}): a POST of {@code application/json}, no static
 * headers, no credential, unsigned, nothing of the answer captured, the JVM's TLS.
 */
public final class ProviderRequestBuilder {
  private String method = ConfigDefaults.METHOD;
  private String contentType = ConfigDefaults.CONTENT_TYPE;
  private Map<String, String> headers = Map.of();
  private ProviderAuth auth = ProviderAuth.NONE;
  private List<Secret> signingSecrets = List.of();
  private ProviderRequest.Capture capture = ProviderRequest.Capture.NONE;

  private ProviderRequestBuilder() {}

  /** The default request, to change. */
  public static ProviderRequestBuilder request() {
    return new ProviderRequestBuilder();
  }

  public ProviderRequestBuilder method(String method) {
    this.method = method;
    return this;
  }

  public ProviderRequestBuilder contentType(String contentType) {
    this.contentType = contentType;
    return this;
  }

  public ProviderRequestBuilder headers(Map<String, String> headers) {
    this.headers = headers;
    return this;
  }

  public ProviderRequestBuilder auth(ProviderAuth auth) {
    this.auth = auth;
    return this;
  }

  public ProviderRequestBuilder signedWith(List<Secret> secrets) {
    this.signingSecrets = secrets;
    return this;
  }

  public ProviderRequestBuilder capture(ProviderRequest.Capture capture) {
    this.capture = capture;
    return this;
  }

  public ProviderRequest build() {
    return new ProviderRequest(method, contentType, headers, auth, signingSecrets, capture, null);
  }
}
