package io.sluice.dispatcher.feedback;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Everything one answer said about the provider's limits, read by {@link RateLimitHeaders}.
 *
 * @param family           which header family the limits came from (only one is read per
 *                         answer, in the order of precedence)
 * @param retryAfterMillis the answer's {@code Retry-After}, from the answer
 * @param policies         limits announced with their window
 * @param remaining        what is left of a limit until its reset
 * @param malformed        the fields that were present and unreadable, one entry per field
 *                         (lower-case names), for the malformed-header count
 * @param listedPolicies   the names of every policy a readable {@code RateLimit-Policy} field of
 *                         this answer lists (the quota policies in force, as the draft defines the
 *                         field), learnable or not; empty when the answer has no such field
 */
record ProviderAnnouncement(Family family, OptionalLong retryAfterMillis,
    List<AnnouncedPolicy> policies, List<AnnouncedRemaining> remaining, List<String> malformed,
    Optional<Set<String>> listedPolicies) {

  /** The header family the limits were read from. */
  public enum Family {
    /** No limits announced (a {@code Retry-After} alone may still be there). */
    NONE,
    /** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers). */
    IETF,
    /**
     * {@code X-RateLimit-Limit/Remaining/Reset}, with or without {@code -Requests}/{@code -Tokens},
     * and {@code X-RateLimit-Limit/Remaining-<period>}.
     */
    X_RATELIMIT
  }

  public static final ProviderAnnouncement NOTHING = new ProviderAnnouncement(Family.NONE,
      OptionalLong.empty(), List.of(), List.of(), List.of(), Optional.empty());

  public ProviderAnnouncement {
    listedPolicies = listedPolicies.map(Set::copyOf);
    policies = List.copyOf(policies);
    remaining = List.copyOf(remaining);
    malformed = List.copyOf(malformed);
  }

  /** Whether the answer said anything a learner can use. */
  public boolean saysAnything() {
    return retryAfterMillis.isPresent() || !policies.isEmpty() || !remaining.isEmpty();
  }
}
