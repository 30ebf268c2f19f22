package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How long an address waits before its next admin token is checked, as a timeline in ms. */
class FailedAttemptsTest {
  private static final String GUESSER = "203.0.113.7";
  private static final String OPERATOR = "198.51.100.2";
  private final FailedAttempts attempts = new FailedAttempts();

  private void fail(String address, int times, long atMillis) {
    for (int i = 0; i < times; i++) {
      attempts.failed(address, atMillis);
    }
  }

  @Test
  @DisplayName("the first five failures cost nothing; each one after waits twice as long, up to a minute")
  void waitsDoubleAfterTheFreeFailures() {
    fail(GUESSER, FailedAttempts.FREE, 0);
    assertEquals(Duration.ZERO, attempts.waitFor(GUESSER, 0), "a mistyped paste costs nothing");

    attempts.failed(GUESSER, 0);                                       // sixth
    assertEquals(Duration.ofSeconds(1), attempts.waitFor(GUESSER, 0));
    assertEquals(Duration.ofMillis(400), attempts.waitFor(GUESSER, 600), "counted from the failure");
    assertEquals(Duration.ZERO, attempts.waitFor(GUESSER, 1_000));

    attempts.failed(GUESSER, 1_000);                                   // seventh
    assertEquals(Duration.ofSeconds(2), attempts.waitFor(GUESSER, 1_000));
    attempts.failed(GUESSER, 3_000);                                   // eighth
    assertEquals(Duration.ofSeconds(4), attempts.waitFor(GUESSER, 3_000));

    assertEquals(Duration.ofSeconds(60), FailedAttempts.waitAfter(50), "capped");
    assertEquals(Duration.ofSeconds(60), FailedAttempts.waitAfter(Integer.MAX_VALUE), "no overflow");
  }

  @Test
  @DisplayName("another address's failures never delay a request")
  void perAddress() {
    fail(GUESSER, 20, 0);
    assertEquals(Duration.ofSeconds(60), attempts.waitFor(GUESSER, 0));
    assertEquals(Duration.ZERO, attempts.waitFor(OPERATOR, 0));
  }

  @Test
  @DisplayName("a quiet window forgets the failures; a right token forgets them at once")
  void forgetting() {
    fail(GUESSER, 8, 0);
    long quiet = FailedAttempts.WINDOW.toMillis();
    assertEquals(Duration.ZERO, attempts.waitFor(GUESSER, quiet));
    attempts.failed(GUESSER, quiet);
    assertEquals(Duration.ZERO, attempts.waitFor(GUESSER, quiet), "a new run: one failure, free");

    fail(OPERATOR, 8, 0);
    attempts.succeeded(OPERATOR);
    assertEquals(Duration.ZERO, attempts.waitFor(OPERATOR, 0));
  }

  @Test
  @DisplayName("a clock stepping back never makes a wait longer than its rule")
  void clockStepsBack() {
    fail(GUESSER, 6, 10_000);
    assertEquals(Duration.ofSeconds(1), attempts.waitFor(GUESSER, 0));
  }

  @Test
  @DisplayName("many addresses: memory is bounded, the least recently seen forgotten first")
  void boundedMemory() {
    FailedAttempts small = new FailedAttempts(3);
    for (int i = 0; i < 8; i++) {
      small.failed(GUESSER, 0);
    }
    for (int i = 0; i < 1_000; i++) {
      small.failed("10.0." + (i / 256) + "." + (i % 256), 0);
    }
    assertEquals(3, small.remembered());
    assertEquals(Duration.ZERO, small.waitFor(GUESSER, 0), "the oldest was forgotten");
  }
}
