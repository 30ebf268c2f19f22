package io.sluice.dispatcher.provider;

import io.sluice.dispatcher.provider.auth.AccessToken;
import io.sluice.dispatcher.provider.auth.Credentials;
import io.sluice.dispatcher.provider.auth.OAuth2Tokens;
import io.sluice.dispatcher.provider.auth.TlsContexts;
import io.sluice.dispatcher.provider.signing.EndpointSigning;
import io.sluice.dispatcher.provider.signing.StandardWebhooksSigner;
import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderRequest;
import io.sluice.config.SealingKeys;
import io.sluice.config.TenantEndpoint;
import io.sluice.config.Secret;
import io.sluice.config.Secrets;
import io.sluice.schemas.validation.RelativePath;
import io.sluice.schemas.trace.TraceParent;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The built-in provider: sends the event's payload (with the provider's {@code method}, POST by
 * default) to the provider's base URL plus the event's relative path, asynchronously
 * ({@code java.net.http}, no thread per call).
 *
 * <p>Request: {@code Content-Type: <contentType>}, {@code Idempotency-Key: <event id>},
 * {@code Sluice-Cost: <event cost>}, the provider's static {@code headers}, its credential
 * ({@link Credentials}), the Standard Webhooks headers when it signs
 * ({@link StandardWebhooksSigner}: {@code webhook-id} is the event id, the same on every attempt;
 * {@code webhook-timestamp} this call's time), and each
 * event attribute whose name the provider lists in {@code forwardHeaders} (case-insensitive),
 * except one that would set {@code Authorization}, the auth header, a {@code webhook-*} header or
 * a static header: credentials never come from an event. With tracing on, {@code traceparent}
 * is the call's span ({@code DispatchSpans}), in place of any attribute of that name. The
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
 *
 * <p>A batch ({@link ProviderCall#batch()}) is sent the same way: its body is the array of its
 * events' payloads, signed whole, its key ({@link BatchBody#key}) stands where an event's id
 * does ({@code Idempotency-Key}, {@code webhook-id}), {@code Sluice-Cost} is the summed cost, and
 * up to {@link BatchAnswer#MAX_BYTES} of a 2xx answer are read for each event's own status.
 */
public final class HttpProvider implements Provider, Pinnable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpProvider.class);
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
  private final ProviderRequest shape;
  private final io.sluice.config.ProviderEndpoints endpointSettings;
  private final String authHeader;
  /** Who signs this destination's calls: the provider's secrets, or a tenant endpoint's own. */
  private final EndpointSigning signing;
  /** What opens a tenant endpoint's sealed signing secret ({@link #toward(TenantEndpoint)}). */
  private final SealingKeys keys;
  /**
   * Whether the provider's credential ({@code auth}, an OAuth2 token) goes on this destination's
   * calls: always to the provider's own URL; to a tenant's endpoint only where the file says so
   * for that endpoint ({@code sendProviderAuth}), since a tenant's server is not the partner the
   * credential is for (issue 33).
   */
  private final boolean sendsAuth;
  /** The credential header's value last sent, and the last one refused (see {@link #credential}). */
  private volatile String sentCredential;
  private volatile String refusedCredential;
  private final Clock clock;
  /** The provider's OAuth2 tokens; null unless its auth is oauth2. */
  private final OAuth2Tokens tokens;
  /** Whether closing this closes the tokens: not for a tenant's endpoint ({@link #toward}). */
  private final boolean ownsTokens;
  /**
   * The route of a guarded per-tenant provider's calls, connecting each to the address its guard
   * pinned ({@link PinnedTunnel}); null for a provider calling its own URL, or one whose
   * endpoints may be private (no guard, nothing to pin).
   */
  private final PinnedTunnel tunnel;

  public HttpProvider(ProviderConfig config, HttpClient client) {
    this(config, client, Clock.systemUTC());
  }

  /** @param clock the time {@code webhook-timestamp} states */
  public HttpProvider(ProviderConfig config, HttpClient client, Clock clock) {
    this(config, client, clock, (Object) null, null, SealingKeys.NONE);
    if (config.request().auth() instanceof ProviderAuth.OAuth2) {
      throw new IllegalArgumentException("a provider with oauth2 needs its OAuth2Tokens");
    }
  }

  private HttpProvider(ProviderConfig config, HttpClient client, Clock clock, Object tokens,
      PinnedTunnel tunnel, SealingKeys keys) {
    this.keys = keys;
    this.sendsAuth = true;
    this.tunnel = tunnel;
    this.tokens = (OAuth2Tokens) tokens;
    this.ownsTokens = true;
    this.base = config.url();
    this.timeout = config.timeout();
    this.shape = config.request();
    this.endpointSettings = config.endpoints();
    this.authHeader = Credentials.headerName(shape.auth());
    TreeSet<String> names = new TreeSet<>();
    for (String h : config.forwardHeaders()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (!RESTRICTED.contains(lower) && !OWN.contains(lower) && !setHere(lower)) {
        names.add(lower);
      }
    }
    this.forward = Set.copyOf(names);
    this.client = client;
    this.signing = EndpointSigning.provider(shape.signingSecrets());
    this.clock = clock;
  }

  /**
   * Whether a (lower-case) header is one this provider's settings set: a credential, a signature
   * or a static header. An event attribute never sets it, whatever {@code forwardHeaders} says
   * (the configuration refuses such a list; this is the second lock).
   */
  private boolean setHere(String lower) {
    return lower.equals("authorization") || lower.startsWith("webhook-")
        || (authHeader != null && authHeader.equalsIgnoreCase(lower))
        || shape.headers().keySet().stream().anyMatch(lower::equalsIgnoreCase);
  }

  /**
   * The provider as the application builds it: its own client (with its {@code tls:} key and
   * trust stores, if any), and for {@code oauth2} its own token fetcher (one per provider per
   * process), started now.
   */
  public static HttpProvider of(String name, ProviderConfig config) {
    return of(name, config, SealingKeys.NONE);
  }

  /**
   * {@link #of(String, ProviderConfig)}, the registry endpoints' sealed signing secrets opened
   * with {@code keys} ({@code secrets.sealingKeys}).
   */
  public static HttpProvider of(String name, ProviderConfig config, SealingKeys keys) {
    // A guarded provider's tenant endpoints are reached only through its tunnel, at the address
    // each guard pinned; its OAuth2 token endpoint (the operator's, not a tenant's) directly, on
    // a client of its own.
    PinnedTunnel tunnel = config.endpoints().perTenant()
        && !config.endpoints().allowPrivateNetworks() ? new PinnedTunnel() : null;
    HttpClient client = client(config, tunnel);
    if (config.request().auth() instanceof ProviderAuth.OAuth2 oauth2) {
      HttpClient tokenClient = tunnel == null ? client : client(config, null);
      return new HttpProvider(config, client, Clock.systemUTC(),
          new OAuth2Tokens(name, oauth2, tokenClient, Clock.systemUTC(), config.timeout()), tunnel,
          keys);
    }
    return new HttpProvider(config, client, Clock.systemUTC(), null, tunnel, keys);
  }

  private static HttpClient client(ProviderConfig config, PinnedTunnel tunnel) {
    HttpClient.Builder builder = clientBuilder(config.timeout());
    if (config.request().tls() != null) {
      builder.sslContext(TlsContexts.of(config.request().tls()));
    }
    if (tunnel != null) {
      builder.proxy(tunnel.proxy());
    }
    return builder.build();
  }

  /**
   * A provider calling tenants' endpoints through {@code tunnel} only (what {@link #of} builds for
   * a guarded per-tenant provider; {@code client} must route through {@code tunnel.proxy()}).
   */
  public static HttpProvider pinned(ProviderConfig config, HttpClient client, PinnedTunnel tunnel) {
    return new HttpProvider(config, client, Clock.systemUTC(), null, tunnel, SealingKeys.NONE);
  }

  /**
   * A client suited to provider calls: HTTP/1.1 (no h2c upgrade dance), no redirects followed, its
   * exchanges run by {@link #exchangeExecutor()}.
   */
  public static HttpClient defaultClient(Duration connectTimeout) {
    return clientBuilder(connectTimeout).build();
  }

  private static HttpClient.Builder clientBuilder(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(connectTimeout)
        .executor(exchangeExecutor());
  }

  /** Threads of a client's {@link #exchangeExecutor()}. */
  static final int EXCHANGE_THREADS = 2;

  /**
   * The threads a client runs its exchanges on (writing a request, reading an answer's headers
   * and body; the answer itself is handed on to {@code CompletableFuture}'s executor): a fixed
   * {@value #EXCHANGE_THREADS}, their queue as long as the calls in flight. The JDK's default is a
   * cached pool, a thread for each task no idle thread takes: at 1,000 endpoints it kept about a
   * hundred threads handing tasks to each other, a quarter of the dispatcher's CPU. The
   * exchanges do not block (the client's I/O is its selector's), so two threads carry every call
   * of the provider; idle for a minute, they end.
   */
  static java.util.concurrent.ExecutorService exchangeExecutor() {
    java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(
        EXCHANGE_THREADS, EXCHANGE_THREADS, 60, java.util.concurrent.TimeUnit.SECONDS,
        new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "sluice-http-" + made.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * A provider with OAuth2 credentials, its tokens from {@code tokens}.
   *
   * @param clock the time {@code webhook-timestamp} states
   */
  public HttpProvider(ProviderConfig config, HttpClient client, Clock clock, OAuth2Tokens tokens) {
    this(config, client, clock, tokens, null, SealingKeys.NONE);
  }

  /**
   * A provider calling tenants' endpoints, their sealed signing secrets opened with {@code keys}
   * (tests; the application builds it with {@link #of(String, ProviderConfig, SealingKeys)}).
   */
  public HttpProvider(ProviderConfig config, HttpClient client, Clock clock, SealingKeys keys) {
    this(config, client, clock, null, null, keys);
  }

  /** The same provider calling {@code endpoint}, for {@link #toward}. */
  private HttpProvider(HttpProvider from, TenantEndpoint endpoint) {
    this.base = endpoint.url();
    this.keys = from.keys;
    this.sendsAuth = endpoint.sendProviderAuth();
    this.signing = EndpointSigning.of(endpoint, from.shape.signingSecrets(),
        from.endpointSettings.sharedSigningSecret(), from.keys);
    this.timeout = from.timeout;
    this.forward = from.forward;
    this.client = from.client;
    this.shape = from.shape;
    this.authHeader = from.authHeader;
    this.clock = from.clock;
    this.endpointSettings = from.endpointSettings;
    // No token fetcher at all for an endpoint the credential does not go to: nothing to send.
    this.tokens = sendsAuth ? from.tokens : null;
    this.ownsTokens = false;
    this.tunnel = from.tunnel;
  }

  /**
   * Pins this endpoint's host to {@code address}, which the caller (the endpoint guard) checked:
   * connections opened from now go there. A provider without a tunnel connects where the JDK
   * resolves the name (its endpoints may be private: there is no guard to pin for).
   */
  @Override
  public void pin(java.net.InetAddress address) {
    if (tunnel != null) {
      int port = base.getPort() != -1 ? base.getPort()
          : "https".equalsIgnoreCase(base.getScheme()) ? 443 : 80;
      tunnel.pin(base.getHost(), port, address);
    }
  }

  /**
   * This provider calling {@code endpoint} as a tenant's endpoint with no secret of its own and no
   * {@code sendProviderAuth}: {@link #toward(TenantEndpoint)}.
   */
  @Override
  public HttpProvider toward(URI endpoint) {
    return toward(new TenantEndpoint(endpoint));
  }

  /**
   * This provider calling a tenant's own endpoint ({@code endpoints: perTenant}): the same client
   * and request shape, another base URL; signed with the endpoint's own secret
   * ({@link EndpointSigning}: the provider's only where it sets {@code sharedSigningSecret}); the
   * provider's credential only where the endpoint says {@code sendProviderAuth} (issue 33: it went
   * to every tenant's URL, and every tenant's receiver held the key that signs for all). Cheap (no
   * client is built); closing it leaves this provider's token fetcher running.
   */
  @Override
  public HttpProvider toward(TenantEndpoint endpoint) {
    return new HttpProvider(this, endpoint);
  }

  /** Empty while calls can be made; else why not (no OAuth2 token), with no secret in it. */
  public Optional<String> problem() {
    return tokens == null ? Optional.empty() : tokens.problem();
  }

  @Override
  public void close() {
    if (tokens != null && ownsTokens) {
      tokens.close();
    }
    if (tunnel != null && ownsTokens) {
      tunnel.close();
    }
  }

  @Override
  public CompletionStage<ProviderResult> call(ProviderCall call) {
    try {
      return send(call);
    } catch (Secret.Unavailable revoked) {
      // A ${file:} credential or signing key deleted: no call carries it, none is made without
      // it; the event waits as for a missing OAuth2 token (no attempt spent).
      return CompletableFuture.completedFuture(
          new ProviderResult.CredentialUnavailable(revoked.getMessage()));
    }
  }

  private CompletionStage<ProviderResult> send(ProviderCall call) {
    Optional<String> unsigned = signing.problem();
    if (unsigned.isPresent()) {
      // Its sealed secret does not open here (a key retired too soon): wait, never go unsigned.
      return CompletableFuture.completedFuture(
          new ProviderResult.CredentialUnavailable(unsigned.get()));
    }
    AccessToken token = null;
    if (tokens != null) {
      Optional<AccessToken> current = tokens.current();
      if (current.isEmpty()) {
        return CompletableFuture.completedFuture(
            new ProviderResult.CredentialUnavailable(tokens.problem().orElse("no OAuth2 token")));
      }
      token = current.get();
    }
    AccessToken used = token;
    CompletableFuture<HttpResponse<byte[]>> sent;
    long started = System.nanoTime();
    try {
      HttpRequest.Builder request = builder(call);
      if (used != null) {
        request.header(Credentials.AUTHORIZATION, "Bearer " + used.value());
      }
      // Headers and body within the timeout: an endpoint trickling its body is a timeout.
      // A batch's answer may list each event's status: enough of its body is kept to read it.
      int kept = call.batch() ? Math.max(keptBodyBytes(), BatchAnswer.MAX_BYTES) : keptBodyBytes();
      sent = WholeDeadline.send(client, request.build(), BoundedBody.handler(kept), timeout);
    } catch (IllegalArgumentException e) {
      // The event's own fault (a path, id or attribute java.net.http will not send): no retry.
      // The message may quote the offending value: its control characters must not reach a log.
      String detail = scrub(String.valueOf(e.getMessage()).replaceAll("\\p{Cntrl}", "?"));
      return CompletableFuture.completedFuture(new ProviderResult.Unsendable(detail));
    }
    return sent.handle((response, error) -> {
      // A 401 from the provider's own URL refuses its token; one from a tenant's endpoint
      // (ownsTokens false) says nothing about it (issue 33: it threw the provider-wide token away).
      if (error == null && used != null && response.statusCode() == 401 && ownsTokens) {
        if (!used.afterRefusal()) {
          tokens.refused(used);
        }
        String body = captured(response).body();
        return new ProviderResult.Unauthorized(used.afterRefusal(), "provider answered 401"
            + (used.afterRefusal() ? " to a token fetched after an earlier 401" : "")
            + (body == null ? "" : "; body: " + body));
      }
      if (error == null) {
        return new ProviderResult.Answered(response.statusCode(),
            response.headers().firstValue("Retry-After").orElse(null),
            new ResponseHeaders(response.headers().map()),
            (System.nanoTime() - started) / 1_000_000, captured(response), itemStatuses(call,
            response));
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
    return builder(call).build();
  }

  private HttpRequest.Builder builder(ProviderCall call) {
    HttpRequest.Builder request = HttpRequest.newBuilder(target(base, call.path()))
        .timeout(timeout)
        .header("Content-Type", shape.contentType())
        .header("Idempotency-Key", call.eventId())
        .header(COST_HEADER, Long.toString(call.cost()))
        .method(shape.method(), call.body().length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(call.body()));
    shape.headers().forEach(request::header);
    if (authHeader != null && tokens == null && sendsAuth) {
      credential(request);
    }
    java.time.Instant now = clock.instant();
    String signature = signing.signature(call.eventId(), now.getEpochSecond(), call.body(),
        now.toEpochMilli());
    if (signature != null) {
      request.header(StandardWebhooksSigner.ID, call.eventId())
          .header(StandardWebhooksSigner.TIMESTAMP, Long.toString(now.getEpochSecond()))
          .header(StandardWebhooksSigner.SIGNATURE, signature);
    }
    for (Map.Entry<String, String> a : call.attributes().entrySet()) {
      if (forward.contains(a.getKey().toLowerCase(Locale.ROOT))) {
        request.header(a.getKey(), a.getValue());
      }
    }
    if (call.traceparent() != null) {
      // The call's own span: the provider's spans are its children. Set, not added: a forwarded
      // attribute of that name never travels beside it.
      request.setHeader(TraceParent.HEADER, call.traceparent());
    }
    return request;
  }

  /**
   * Sets the credential header. A {@code ${file:}} secret rotated to text that cannot be sent (a
   * control character, a stray line) keeps the value last sent, with one warning per such text:
   * the events are not at fault, and ending their calls as {@link ProviderResult.Unsendable}
   * would dead-letter each of them as {@code invalid}. With no value sent yet, the call ends so.
   */
  private void credential(HttpRequest.Builder request) {
    String value = Credentials.headerValue(shape.auth());
    try {
      request.header(authHeader, value);
      if (!value.equals(sentCredential)) {
        sentCredential = value;
      }
    } catch (IllegalArgumentException e) {
      // java.net.http quotes the refused value: never let the credential into the message.
      String last = sentCredential;
      if (last == null) {
        throw new IllegalArgumentException("the credential for " + authHeader
            + " is not a valid header value (a control character in the secret?)");
      }
      if (!value.equals(refusedCredential)) {
        refusedCredential = value;
        LOG.warn("the credential for {} to {} is not a valid header value now (a control character"
            + " in the secret?); sending the last valid one until it is", authHeader, base.getHost());
      }
      request.header(authHeader, last);
    }
  }

  /**
   * Each event's own status, as a 2xx answer to a batch lists it ({@link BatchAnswer}); empty for
   * a single event's call, and for any other answer (a 429 or a 5xx is the whole call's).
   */
  private static Map<String, Integer> itemStatuses(ProviderCall call,
      HttpResponse<byte[]> response) {
    if (!call.batch() || response.statusCode() / 100 != 2) {
      return Map.of();
    }
    return BatchAnswer.statuses(response.body(), Set.copyOf(call.batchIds()));
  }

  /** The listed headers and the body excerpt of an answer, bounded and scrubbed. */
  private Captured captured(HttpResponse<byte[]> response) {
    ProviderRequest.Capture capture = shape.capture();
    if (capture.headers().isEmpty() && capture.bodyBytes() == 0) {
      return Captured.NONE;
    }
    Map<String, String> headers = new TreeMap<>();
    for (String name : capture.headers()) {
      List<String> values = response.headers().allValues(name);
      if (!values.isEmpty()) {
        headers.put(name.toLowerCase(Locale.ROOT), printable(String.join(", ", values),
            Captured.MAX_HEADER_CHARS));
      }
    }
    String body = null;
    if (capture.bodyBytes() > 0) {
      // Masked before it is cut: a secret straddling the cut must not leave its first half.
      byte[] masked = printable(new String(response.body(), StandardCharsets.UTF_8),
          Integer.MAX_VALUE).getBytes(StandardCharsets.UTF_8);
      body = new String(masked, 0, Math.min(masked.length, capture.bodyBytes()),
          StandardCharsets.UTF_8);
    }
    return new Captured(headers, body);
  }

  /**
   * How much of a body is read into memory: {@code capture.bodyBytes}, plus the longest secret
   * (so that one starting inside the excerpt is seen whole, and masked); 0 without capture.
   */
  private int keptBodyBytes() {
    int excerpt = shape.capture().bodyBytes();
    if (excerpt == 0) {
      return 0;
    }
    int longest = 0;
    for (String secret : secrets()) {
      longest = Math.max(longest, secret.getBytes(StandardCharsets.UTF_8).length);
    }
    return excerpt + longest;
  }

  /** Control characters as '?', at most {@code max} characters, the provider's secrets masked. */
  private String printable(String text, int max) {
    String cut = text.length() > max ? text.substring(0, max) : text;
    return scrub(cut.replaceAll("\\p{Cntrl}", "?"));
  }

  /**
   * {@code text} with each of the provider's secrets masked: a provider may echo the request's
   * credential in an error body, and nothing Sluice writes may carry it.
   */
  private String scrub(String text) {
    return Secrets.scrub(text, secrets());
  }

  /** The provider's secrets as they are now: its credential (and header value), its keys. */
  private List<String> secrets() {
    List<String> secrets = new ArrayList<>();
    try {
      collectSecrets(secrets);
    } catch (Secret.Unavailable revoked) {
      // revoked since the call was built: what was collected is masked, the rest is not sent
    }
    return secrets;
  }

  private void collectSecrets(List<String> secrets) {
    String credential = Credentials.headerValue(shape.auth());
    if (credential != null) {
      secrets.add(credential);
    }
    if (tokens != null) {
      tokens.current().ifPresent(t -> secrets.add(t.value()));
    }
    secrets.addAll(Credentials.secretValues(shape.auth()));
    shape.signingSecrets().forEach(s -> secrets.add(s.value()));
    signing.secrets().forEach(s -> secrets.add(s.value()));
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
