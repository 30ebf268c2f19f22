package io.sluice.app.admin;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long an address must wait before its next admin token is checked, from the tokens it got
 * wrong: guessing is slowed where it comes from, and nowhere else (issue 33: failed attempts were
 * not slowed).
 *
 * <p>The rule: an address's failures count while they follow each other within {@link #WINDOW}
 * (one more failure keeps the run open; a quiet {@code WINDOW} forgets them). The first
 * {@link #FREE} failures cost nothing (a mistyped paste); each one after waits twice as long as
 * the one before, from {@link #FIRST_WAIT} up to {@link #MAX_WAIT}, counted from that failure. A
 * request from an address that must wait is refused unchecked (429 with {@code Retry-After}, see
 * {@link AdminApi}); it neither counts nor extends the wait. A right token clears its address.
 * Nothing sleeps: an attacker's requests hold no thread of the ops port.
 *
 * <p>Another address's failures never delay a request: the state is per address (an IPv6 client
 * is keyed by its /64, {@link AdminApi#attemptKey}, so one host cannot rotate through its own
 * addresses). Memory is bounded: at most {@link #MAX_ADDRESSES} addresses are remembered, and the
 * one seen least recently is forgotten first (a flood of addresses resets the oldest, never
 * blocks a newcomer).
 *
 * <p>Pure: time is passed in (milliseconds on any clock that only goes forward); thread-safe.
 */
final class FailedAttempts {
  /** Failures in a run that cost nothing. */
  static final int FREE = 5;
  /** A quiet time after which an address's failures are forgotten. */
  static final Duration WINDOW = Duration.ofMinutes(5);
  /** The wait after the first failure past {@link #FREE}. */
  static final Duration FIRST_WAIT = Duration.ofSeconds(1);
  /** The longest wait. */
  static final Duration MAX_WAIT = Duration.ofSeconds(60);
  /** The most addresses remembered. */
  static final int MAX_ADDRESSES = 10_000;

  /** One address's run of failures: how many, and when the last one was. */
  private record Run(int failures, long lastMillis) { }

  private final int maxAddresses;
  /** In order of last failure, oldest first. */
  private final Map<String, Run> runs;

  FailedAttempts() {
    this(MAX_ADDRESSES);
  }

  FailedAttempts(int maxAddresses) {
    this.maxAddresses = maxAddresses;
    this.runs = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Run> eldest) {
        return size() > FailedAttempts.this.maxAddresses;
      }
    };
  }

  /** How long {@code address} must still wait at {@code nowMillis}; zero if its token is checked. */
  synchronized Duration waitFor(String address, long nowMillis) {
    Run run = current(address, nowMillis);
    if (run == null || run.failures <= FREE) {
      return Duration.ZERO;
    }
    long wait = waitAfter(run.failures).toMillis();
    // Never longer than the wait itself, should the clock step back.
    long left = Math.min(wait, run.lastMillis + wait - nowMillis);
    return left > 0 ? Duration.ofMillis(left) : Duration.ZERO;
  }

  /** A wrong token from {@code address} at {@code nowMillis}. */
  synchronized void failed(String address, long nowMillis) {
    Run run = current(address, nowMillis);
    runs.put(address, new Run(run == null ? 1 : run.failures + 1, nowMillis));
  }

  /** A right token from {@code address}: its failures are forgotten. */
  synchronized void succeeded(String address) {
    runs.remove(address);
  }

  /** How many addresses are remembered. */
  synchronized int remembered() {
    return runs.size();
  }

  /** The wait after the {@code failures}-th failure of a run. */
  static Duration waitAfter(int failures) {
    if (failures <= FREE) {
      return Duration.ZERO;
    }
    int doublings = Math.min(failures - FREE - 1, 30);
    long millis = FIRST_WAIT.toMillis() << doublings;
    return Duration.ofMillis(Math.min(millis, MAX_WAIT.toMillis()));
  }

  private Run current(String address, long nowMillis) {
    Run run = runs.get(address);
    if (run != null && nowMillis - run.lastMillis >= WINDOW.toMillis()) {
      runs.remove(address);
      return null;
    }
    return run;
  }
}
