package io.sluice.config;

import java.util.Locale;

/**
 * What the gate and dispatcher do for a provider while Redis does not answer. The configuration
 * spells them {@code fail_open | fail_closed | local} ({@link #code()}).
 */
public enum RedisDownPolicy {
  /** Let events through unlimited (counted, logged once per transition). */
  FAIL_OPEN,
  /** Hold everything back through the delay ladder with reason redis_unavailable. */
  FAIL_CLOSED,
  /** Enforce an in-process bucket at this instance's share of the rate. */
  LOCAL;

  /** The configuration spelling: {@code fail_open}, {@code fail_closed}, {@code local}. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Reads the configuration spelling, ignoring case. */
  public static RedisDownPolicy fromCode(String code) {
    for (RedisDownPolicy policy : values()) {
      if (policy.code().equalsIgnoreCase(code.trim())) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "expected one of fail_open, fail_closed, local, got \"" + code + "\"");
  }
}
