package io.sluice.config;

/**
 * @param uri {@code redis://host:port}, {@code rediss://}, {@code redis-cluster://h1:p1,h2:p2,...}
 *            or {@code rediss-cluster://}, each with optional {@code user:password@} (see
 *            {@link RedisUri}). It may hold a password: show it only as {@link #redactedUri()}.
 */
public record RedisConfig(String uri) {
  public boolean isCluster() {
    return parsed().cluster();
  }

  /** The URI taken apart; {@link ConfigLoader} has checked that it parses. */
  public RedisUri parsed() {
    return RedisUri.parse(uri);
  }

  /** The URI with its user info masked, for messages and logs. */
  public String redactedUri() {
    return Secrets.uri(uri);
  }

  @Override
  public String toString() {
    return "RedisConfig[uri=" + redactedUri() + "]";
  }
}
