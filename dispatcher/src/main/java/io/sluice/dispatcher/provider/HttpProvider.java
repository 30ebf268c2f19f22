package io.sluice.dispatcher.provider;

import io.sluice.config.ProviderConfig;
import io.sluice.schemas.validation.RelativePath;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The built-in provider: POSTs the event's payload to the provider's base URL plus the event's
 * relative path, asynchronously ({@code java.net.http}, no thread per call).
 *
 * <p>Request: {@code Content-Type: application/json}, {@code Idempotency-Key: <event id>},
 * {@code Sluice-Cost: <event cost>}, and each
 * event attribute whose name the provider lists in {@code forwardHeaders} (case-insensitive). The
 * event can choose a path below the base URL, never another host: {@link #target} resolves it with
 * {@link RelativePath}, the rule the gate validated it with, and refuses any URL whose scheme, host
 * or port differ from the base (the second lock on the door).
 *
 * <p>Input faults are the gate's to decide: every id, attribute and path it accepts is one this
 * class can send ({@code HttpProviderSendableTest} holds that). Should a request still be
 * unbuildable (a record that bypassed the gate), the call ends as
 * {@link ProviderResult.Unsendable}, dead with reason {@code invalid}, never a retryable
 * connection error: retrying cannot fix the event, and each retry would cost a slot of the
 * provider's rate.
 */
public final class HttpProvider implements Provider {
  /** Headers {@code java.net.http} manages itself and refuses to let a caller set. */
  private static final Set<String> RESTRICTED =
      Set.of("connection", "content-length", "expect", "host", "upgrade");
  /**
   * Headers this class sets itself or that frame the body: an attribute of that name is never
   * forwarded, whatever {@code forwardHeaders} says (a second {@code Idempotency-Key} value would
   * leave the provider to guess which one is the key).
   */
  private static final Set<String> OWN =
      Set.of("idempotency-key", "content-type", "transfer-encoding", "sluice-cost");
  /**
   * The event's cost, on every request: a provider (or the gateway in front of it) counting cost
   * units the way the event does can check it, and Sluice's test providers charge their cost
   * limits by it.
   */
  public static final String COST_HEADER = "Sluice-Cost";

  private final URI base;
  private final Duration timeout;
  private final Set<String> forward;
  private final HttpClient client;

  public HttpProvider(ProviderConfig config, HttpClient client) {
    this.base = config.url();
    this.timeout = config.timeout();
    TreeSet<String> names = new TreeSet<>();
    for (String h : config.forwardHeaders()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (!RESTRICTED.contains(lower) && !OWN.contains(lower)) {
        names.add(lower);
      }
    }
    this.forward = Set.copyOf(names);
    this.client = client;
  }

  /** A client suited to provider calls: HTTP/1.1 (no h2c upgrade dance), no redirects followed. */
  public static HttpClient defaultClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(connectTimeout)
        .build();
  }

  @Override
  public CompletionStage<ProviderResult> call(ProviderCall call) {
    CompletableFuture<HttpResponse<Void>> sent;
    try {
      sent = client.sendAsync(request(call), HttpResponse.BodyHandlers.discarding());
    } catch (IllegalArgumentException e) {
      // The event's own fault (a path, id or attribute java.net.http will not send): no retry.
      // The message may quote the offending value: its control characters must not reach a log.
      String detail = String.valueOf(e.getMessage()).replaceAll("\\p{Cntrl}", "?");
      return CompletableFuture.completedFuture(new ProviderResult.Unsendable(detail));
    }
    return sent.handle((response, error) -> {
      if (error == null) {
        return new ProviderResult.Answered(response.statusCode(),
            response.headers().firstValue("Retry-After").orElse(null),
            new ResponseHeaders(response.headers().map()));
      }
      return failure(error);
    });
  }

  /**
   * The request for one call.
   *
   * @throws IllegalArgumentException when the event's path, id or a forwarded attribute cannot be
   *                                  sent
   */
  HttpRequest request(ProviderCall call) {
    HttpRequest.Builder request = HttpRequest.newBuilder(target(base, call.path()))
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", call.eventId())
        .header(COST_HEADER, Long.toString(call.cost()))
        .POST(call.body().length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(call.body()));
    for (Map.Entry<String, String> a : call.attributes().entrySet()) {
      if (forward.contains(a.getKey().toLowerCase(Locale.ROOT))) {
        request.header(a.getKey(), a.getValue());
      }
    }
    return request.build();
  }

  static ProviderResult failure(Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    if (cause instanceof HttpConnectTimeoutException || cause instanceof ConnectException) {
      return new ProviderResult.ConnectFailed(cause.toString());
    }
    if (cause instanceof HttpTimeoutException) {
      return new ProviderResult.TimedOut(cause.getMessage());
    }
    return new ProviderResult.ConnectFailed(cause.toString());
  }

  /**
   * The base URL plus a relative path, as {@link RelativePath#resolve} joins them:
   * {@code http://h/hooks} + {@code orders/7?x=1} is {@code http://h/hooks/orders/7?x=1}; a path
   * starting with {@code ?} attaches to the base itself.
   *
   * @throws IllegalArgumentException if the path breaks a {@link RelativePath} rule, or the result
   *                                  would leave the base's scheme, host or port
   */
  public static URI target(URI base, String path) {
    URI uri = RelativePath.resolve(base, path);
    if (!base.getScheme().equalsIgnoreCase(uri.getScheme())
        || !base.getHost().equalsIgnoreCase(String.valueOf(uri.getHost()))
        || base.getPort() != uri.getPort()) {
      throw new IllegalArgumentException("path " + path + " leaves the provider's host " + base);
    }
    return uri;
  }
}
