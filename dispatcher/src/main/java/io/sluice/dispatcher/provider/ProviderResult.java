package io.sluice.dispatcher.provider;

/** What came back from one provider call. */
public sealed interface ProviderResult {

  /**
   * The provider answered.
   *
   * @param retryAfter the raw {@code Retry-After} header, or null
   * @param headers    the rate-limit fields of the answer ({@link ResponseHeaders}), read from
   *                   every answer, 2xx included, to learn the provider's limits
   */
  record Answered(int status, String retryAfter, ResponseHeaders headers) implements ProviderResult {
    public Answered {
      headers = headers == null ? ResponseHeaders.NONE : headers;
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
}
