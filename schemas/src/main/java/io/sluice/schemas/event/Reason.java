package io.sluice.schemas.event;

import java.util.Arrays;
import java.util.Optional;

/**
 * The values of the {@code sluice-reason} header: why a record was deferred or dead-lettered.
 * The wire form ({@link #code()}) is a contract; never rename one.
 */
public enum Reason {
  RATE_LIMITED("rate_limited"),
  OVERFLOW("overflow"),
  PROVIDER_429("provider_429"),
  PROVIDER_5XX("provider_5xx"),
  TIMEOUT("timeout"),
  CONNECT_ERROR("connect_error"),
  INVALID("invalid"),
  UNKNOWN_TENANT("unknown_tenant"),
  UNKNOWN_PROVIDER("unknown_provider"),
  EXPIRED("expired"),
  MAX_ATTEMPTS("max_attempts"),
  NON_RETRYABLE_4XX("non_retryable_4xx"),
  REDIS_UNAVAILABLE("redis_unavailable"),
  /** A provider refused a call (401) made with a token fetched after an earlier 401. */
  UNAUTHORIZED("unauthorized"),
  /**
   * Deferred, no attempt spent: the provider's OAuth2 token is being fetched (its endpoint down,
   * or a 401 asked for a new one).
   */
  CREDENTIAL_UNAVAILABLE("credential_unavailable"),
  /** The event's tenant has no endpoint toward its per-tenant provider ({@code endpoints: perTenant}). */
  NO_ENDPOINT("no_endpoint"),
  /** The tenant's endpoint was disabled after failing, and its provider says {@code whileDisabled: dead_letter}. */
  ENDPOINT_DISABLED("endpoint_disabled"),
  /**
   * Not an outcome: the event waits in Kafka (round the delay ladder) for its lane, which cannot
   * call it within seconds (its provider's Retry-After, its endpoint disabled until a probe, an
   * operator's pause), so that it holds no memory and no partition's commit meanwhile.
   */
  PARKED("parked"),
  /**
   * Not an outcome: the event asked to be called at a time ({@code deliverAt}, {@code delay}) and
   * waits round the ladder for it, unpaid, back to the gate to be charged when it falls due.
   */
  SCHEDULED("scheduled"),
  /** The event asked for a time further ahead than its provider's {@code maxDelay}. */
  BEYOND_MAX_DELAY("beyond_max_delay"),
  /**
   * The gate's estimate of when the event reaches its provider by its quota ({@code sluice-eta})
   * is after its {@code deadline}: dead at once rather than expiring after its wait.
   */
  DEADLINE_UNREACHABLE("deadline_unreachable"),
  /**
   * Not an outcome: the event has an {@code orderingKey} and an event of its key that entered
   * before it has no outcome yet; it waits round the ladder for its turn.
   */
  ORDERING("ordering"),
  /**
   * The event of its {@code orderingKey} before it was dead-lettered and its provider says
   * {@code orderingOnDeadHead: deadLetter}: it is not called out of order.
   */
  BLOCKED_BY_HEAD("blocked_by_head"),
  /**
   * The event's tenant has its provider's {@code maxOrderingKeys} keys with events in flight
   * already, or Redis gave its key no turn: it cannot be ordered, and is not called unordered.
   */
  NOT_ORDERED("not_ordered");

  private final String code;

  Reason(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }

  public static Optional<Reason> fromCode(String code) {
    return Arrays.stream(values()).filter(r -> r.code.equals(code)).findFirst();
  }
}
