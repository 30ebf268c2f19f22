package io.sluice.app.cli;

import java.util.concurrent.CountDownLatch;

/**
 * Keeps a server command running until SIGTERM or Ctrl-C, then closes what it started, once.
 * The JVM runs shutdown hooks on SIGTERM and SIGINT; the hook closes the application (dispatcher
 * calls finish and are committed, the relay settles, the gate commits) and only then lets the
 * JVM exit.
 */
final class Lifecycle {
  private Lifecycle() {}

  static void runUntilStopped(AutoCloseable app, String what) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      System.err.println("sluice: stopping " + what + " ...");
      try {
        app.close();
      } catch (Exception e) {
        System.err.println("sluice: stopping failed: " + e);
      } finally {
        stopped.countDown();
      }
    }, "sluice-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    System.err.println("sluice: " + what + " running; SIGTERM or Ctrl-C stops it cleanly");
    stopped.await();
  }
}
