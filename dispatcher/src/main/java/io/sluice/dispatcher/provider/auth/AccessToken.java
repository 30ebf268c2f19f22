package io.sluice.dispatcher.provider.auth;

/**
 * An OAuth2 access token and when to replace it. Pure: times are passed in.
 *
 * @param value          the token (a secret: {@link #toString} masks it)
 * @param obtainedMillis when the token endpoint answered
 * @param expiresMillis  when the token stops being valid ({@code expires_in} after it was
 *                       obtained)
 * @param afterRefusal   fetched because a call with the previous token was refused (401): a 401
 *                       with this one means the credentials themselves are refused
 */
public record AccessToken(String value, long obtainedMillis, long expiresMillis,
    boolean afterRefusal) {
  /**
   * A token is not sent in its last second (in the last tenth of its lifetime, if shorter than
   * 10 s): a call on the wire as it expires would be refused, and clocks differ. The refresh at
   * 80 % comes before, so a token is replaced while still usable.
   */
  public static final long SKEW_MILLIS = 1_000;
  /** The lifetime assumed when the token endpoint gives no {@code expires_in} (RFC 6749 5.1). */
  public static final long DEFAULT_LIFETIME_SECONDS = 300;

  /** Whether a call may carry the token at {@code nowMillis}. */
  public boolean usableAt(long nowMillis) {
    long skew = Math.min(SKEW_MILLIS, (expiresMillis - obtainedMillis) / 10);
    return nowMillis < expiresMillis - skew;
  }

  /**
   * When to fetch the next token: once 80 % of the lifetime has passed, so the new one is in
   * place well before this one expires and no call waits for it (a 30 s token is replaced after
   * 24 s).
   */
  public long refreshAtMillis() {
    return obtainedMillis + (expiresMillis - obtainedMillis) * 4 / 5;
  }

  @Override
  public String toString() {
    return "AccessToken[***, expires " + expiresMillis + (afterRefusal ? ", after a 401" : "") + "]";
  }
}
