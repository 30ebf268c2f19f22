package io.sluice.embedded;

import java.time.Duration;

/**
 * A point in time by which something must have happened, for the "poll a condition until a
 * deadline" loops used everywhere here instead of fixed sleeps. Uses {@link System#nanoTime()}
 * because these are real waits on real servers, not decisions that need an injected clock.
 */
final class Deadline {

    /** How long a poll loop waits between two checks: short, so readiness is noticed quickly. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    private final long deadlineNanos;
    private final Duration timeout;

    private Deadline(Duration timeout) {
        this.timeout = timeout;
        this.deadlineNanos = System.nanoTime() + timeout.toNanos();
    }

    static Deadline after(Duration timeout) {
        return new Deadline(timeout);
    }

    boolean expired() {
        return System.nanoTime() - deadlineNanos >= 0;
    }

    /** Time left, never negative. */
    Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** The timeout this deadline was created with, for error messages. */
    Duration timeout() {
        return timeout;
    }

    /** Waits one poll interval (or less if the deadline is nearer). */
    void pause() {
        long millis = Math.min(POLL_INTERVAL.toMillis(), remaining().toMillis());
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting", e);
        }
    }
}
