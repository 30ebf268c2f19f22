package io.sluice.dispatcher.provider.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.ProviderAuth;
import io.sluice.config.Secrets;
import io.sluice.dispatcher.provider.BoundedBody;
import io.sluice.dispatcher.provider.WholeDeadline;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One provider's OAuth2 token, fetched with the client-credentials grant (RFC 6749 section 4.4)
 * on a thread of its own: first at start, then at 80 % of each token's lifetime
 * ({@link AccessToken#refreshAtMillis}), so calls never wait for a refresh; and at once when a
 * call is refused with 401 ({@link #refused}). A failed fetch is tried again after 1 s, doubling
 * to 30 s; meanwhile {@link #current} is empty once the last token expired, and
 * {@link #problem} says why.
 *
 * <p>The request: {@code POST tokenUrl}, {@code Content-Type: application/x-www-form-urlencoded},
 * body {@code grant_type=client_credentials} plus {@code scope} and {@code audience} when set,
 * the client authenticated with HTTP Basic ({@code client_secret_basic}, RFC 6749 section 2.3.1:
 * id and secret form-encoded, then base64). The answer must be 200 with JSON holding
 * {@code access_token} and {@code token_type} {@code Bearer} (any case); {@code expires_in}
 * defaults to {@link AccessToken#DEFAULT_LIFETIME_SECONDS}. At most {@link #MAX_ANSWER_BYTES} of
 * the answer are read. Nothing of the answer's body reaches a log or a problem (it may echo the
 * client secret): only its status and the {@code error} code, if one of 64 plain characters.
 */
public final class OAuth2Tokens implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OAuth2Tokens.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final int MAX_ANSWER_BYTES = 64 * 1024;
  static final long FIRST_RETRY_MILLIS = 1_000;
  static final long MAX_RETRY_MILLIS = 30_000;

  private final String provider;
  private final ProviderAuth.OAuth2 config;
  private final HttpClient client;
  private final Clock clock;
  private final Duration timeout;
  private final ScheduledExecutorService timer;
  private final AtomicBoolean fetching = new AtomicBoolean();
  private volatile AccessToken token;
  private volatile String problem = "no token fetched yet";
  private long retryMillis = FIRST_RETRY_MILLIS;
  /** The next fetch planned (a refresh or a retry); replaced, never doubled, by each plan. */
  private ScheduledFuture<?> next;

  public OAuth2Tokens(String provider, ProviderAuth.OAuth2 config, HttpClient client, Clock clock,
      Duration timeout) {
    this.provider = provider;
    this.config = config;
    this.client = client;
    this.clock = clock;
    this.timeout = timeout;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-oauth2-" + provider);
      t.setDaemon(true);
      return t;
    });
    timer.execute(this::fetch);
  }

  /** The token a call may carry now; empty while none is valid (the endpoint down, or a 401). */
  public Optional<AccessToken> current() {
    AccessToken t = token;
    return t != null && t.usableAt(clock.millis()) ? Optional.of(t) : Optional.empty();
  }

  /**
   * A call carrying {@code used} was refused with 401: fetch a new token now, unless one newer
   * than {@code used} is already there or on its way. Calls wait meanwhile.
   */
  public void refused(AccessToken used) {
    synchronized (this) {
      if (token != used) {
        return;
      }
      token = null;
      problem = "a call was refused with 401; fetching a new token";
    }
    timer.execute(() -> fetch(true));
  }

  /** Empty while a valid token is held; else why not (no secret in it). */
  public Optional<String> problem() {
    return current().isPresent() ? Optional.empty()
        : Optional.of("provider " + provider + ": no OAuth2 token: " + problem);
  }

  private void fetch() {
    fetch(false);
  }

  private void fetch(boolean afterRefusal) {
    if (!fetching.compareAndSet(false, true)) {
      return;
    }
    try {
      // The whole answer within the timeout (a token endpoint trickling its body would hold
      // this thread, and with it every refresh); at most MAX_ANSWER_BYTES kept, the rest dropped.
      HttpResponse<byte[]> answer;
      try {
        answer = WholeDeadline.send(client, request(), BoundedBody.handler(MAX_ANSWER_BYTES),
            timeout).get();
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
      long now = clock.millis();
      AccessToken fetched = parse(answer.statusCode(), answer.body(), now, afterRefusal);
      synchronized (this) {
        token = fetched;
        problem = "";
      }
      retryMillis = FIRST_RETRY_MILLIS;
      plan(this::fetch, Math.max(0, fetched.refreshAtMillis() - now));
    } catch (Exception e) {
      String why = e instanceof TokenRefused r ? r.getMessage()
          : "token endpoint unreachable (" + e.getClass().getSimpleName() + ")";
      problem = why + "; trying again in " + retryMillis + " ms";
      LOG.warn("provider {}: could not fetch an OAuth2 token from {}: {}", provider,
          Secrets.uri(config.tokenUrl().toString()), problem);
      plan(() -> fetch(afterRefusal), retryMillis);
      retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
    } finally {
      fetching.set(false);
    }
  }

  private synchronized void plan(Runnable fetch, long inMillis) {
    if (next != null) {
      next.cancel(false);
    }
    if (!timer.isShutdown()) {
      next = timer.schedule(fetch, inMillis, TimeUnit.MILLISECONDS);
    }
  }

  private HttpRequest request() {
    StringBuilder form = new StringBuilder("grant_type=client_credentials");
    if (config.scope() != null) {
      form.append("&scope=").append(encode(config.scope()));
    }
    if (config.audience() != null) {
      form.append("&audience=").append(encode(config.audience()));
    }
    String basic = Base64.getEncoder().encodeToString((encode(config.clientId()) + ":"
        + encode(config.clientSecret().value())).getBytes(StandardCharsets.UTF_8));
    return HttpRequest.newBuilder(config.tokenUrl())
        .timeout(timeout)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json")
        .header("Authorization", "Basic " + basic)
        .POST(HttpRequest.BodyPublishers.ofString(form.toString()))
        .build();
  }

  /** The token in a token endpoint's answer. */
  static AccessToken parse(int status, byte[] body, long nowMillis, boolean afterRefusal)
      throws TokenRefused {
    JsonNode json;
    try {
      json = JSON.readTree(body);
    } catch (IOException e) {
      json = null;
    }
    if (status != 200) {
      String error = json == null ? "" : json.path("error").asText("");
      throw new TokenRefused("token endpoint answered " + status
          + (error.matches("[A-Za-z0-9_.-]{1,64}") ? " (" + error + ")" : ""));
    }
    if (json == null || !json.path("access_token").isTextual()
        || json.path("access_token").asText().isEmpty()) {
      throw new TokenRefused("token endpoint answered 200 without an access_token");
    }
    if (!"bearer".equalsIgnoreCase(json.path("token_type").asText(""))) {
      throw new TokenRefused("token endpoint answered a token_type other than Bearer");
    }
    long lifetime = json.path("expires_in").canConvertToLong() && json.path("expires_in").asLong() > 0
        ? json.path("expires_in").asLong() : AccessToken.DEFAULT_LIFETIME_SECONDS;
    return new AccessToken(json.get("access_token").asText(), nowMillis,
        nowMillis + lifetime * 1000, afterRefusal);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }

  /** The token endpoint answered, but with no token. */
  static final class TokenRefused extends Exception {
    TokenRefused(String message) {
      super(message, null, false, false);
    }
  }
}
