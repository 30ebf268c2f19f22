package io.sluice.dispatcher.app;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waiting on a condition with a deadline: the only way these tests synchronise. */
public final class Await {
  private Await() {}

  /** Polls {@code condition} every 50 ms; fails naming {@code what} when {@code within} passes. */
  public static void until(String what, Duration within, BooleanSupplier condition) {
    long end = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("timed out after " + within + " waiting for " + what);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }
}
