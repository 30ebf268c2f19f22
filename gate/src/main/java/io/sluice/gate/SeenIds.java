package io.sluice.gate;

import java.time.Duration;

/** Where the gate remembers the first record of each event id, for a window (Redis in production). */
public interface SeenIds {
  /**
   * The mark of the first record that brought {@code key}'s id within {@code window}, storing
   * {@code mark} (expiring after the window) when there was none; null when the store does not
   * answer in time, and then nothing is suppressed (the event may be called twice, as without a
   * window; the provider still gets its {@code Idempotency-Key}).
   */
  String firstMark(String key, String mark, Duration window);

  /** No store: every id is new. */
  SeenIds NONE = (key, mark, window) -> null;
}
