package io.sluice.dispatcher.provider;

import java.util.Map;

/** What came back from one provider call. */
public sealed interface ProviderResult {

  /**
   * The provider answered.
   *
   * @param retryAfter    the raw {@code Retry-After} header, or null
   * @param headers       the rate-limit fields of the answer ({@link ResponseHeaders}), read
   *                      from every answer, 2xx included, to learn the provider's limits
   * @param latencyMillis from sending the request to the answer's body read (as far as kept)
   * @param captured      what the provider's {@code capture:} keeps of the answer
   * @param itemStatuses    to a batch, each event's own status where the answer lists it
   *                        ({@link BatchAnswer}), by event id; empty otherwise
   */
  record Answered(int status, String retryAfter, ResponseHeaders headers, long latencyMillis,
      Captured captured, Map<String, Integer> itemStatuses) implements ProviderResult {
    public Answered {
      headers = headers == null ? ResponseHeaders.NONE : headers;
      captured = captured == null ? Captured.NONE : captured;
      itemStatuses = itemStatuses == null ? Map.of() : Map.copyOf(itemStatuses);
    }

    /** An answer to the call of one event. */
    public Answered(int status, String retryAfter, ResponseHeaders headers, long latencyMillis,
        Captured captured) {
      this(status, retryAfter, headers, latencyMillis, captured, Map.of());
    }

    /** An answer with nothing captured and no latency measured. */
    public Answered(int status, String retryAfter, ResponseHeaders headers) {
      this(status, retryAfter, headers, 0, null);
    }

    /** An answer with no rate-limit fields beyond {@code Retry-After}. */
    public Answered(int status, String retryAfter) {
      this(status, retryAfter, retryAfter == null ? ResponseHeaders.NONE
          : ResponseHeaders.of("Retry-After", retryAfter));
    }
  }

  /** No answer within the provider's timeout. */
  record TimedOut(String detail) implements ProviderResult {}

  /** No connection: refused, reset, unresolvable host, TLS failure. */
  record ConnectFailed(String detail) implements ProviderResult {}

  /**
   * No request could be built from the event (a path, id or attribute HTTP cannot carry): the
   * event's own fault, never retried. The gate refuses such events; this is the last line.
   */
  record Unsendable(String detail) implements ProviderResult {}

  /**
   * Not sent: the provider's OAuth2 token is not there (its endpoint down, or being replaced
   * after a 401). The event waits for a later slot; no attempt is spent.
   */
  record CredentialUnavailable(String detail) implements ProviderResult {}

  /**
   * The provider answered 401 to a call carrying an OAuth2 token.
   *
   * @param afterRefusal the token was itself fetched after a 401: the credentials are refused
   *                     (the event is dead, {@code unauthorized}); else a new token is being
   *                     fetched and the event goes again, no attempt spent
   */
  record Unauthorized(boolean afterRefusal, String detail) implements ProviderResult {}
}
