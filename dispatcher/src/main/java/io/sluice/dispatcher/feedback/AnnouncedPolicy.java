package io.sluice.dispatcher.feedback;

/**
 * A limit the provider announced: at most {@code quota} units per {@code windowMillis}
 * ({@code RateLimit-Policy: "name";q=600;w=60}).
 *
 * @param name the provider's name for the policy ({@code x-ratelimit-requests} for the
 *             {@code X-RateLimit-*} families)
 */
record AnnouncedPolicy(String name, LimitUnit unit, long quota, long windowMillis) {
  public AnnouncedPolicy {
    if (quota < 0 || windowMillis <= 0) {
      throw new IllegalArgumentException("quota " + quota + " per " + windowMillis + " ms");
    }
  }
}
