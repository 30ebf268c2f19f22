package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The answers of the ping function, one per way a ping can end. (Against a real Redis, up and
 * stopped, this check is exercised by {@link OpsServerIT}.)
 */
class RedisReachabilityTest {

  private static HealthCheck.Result check(java.util.function.Supplier<CompletableFuture<String>> ping) {
    return new RedisReachability(ping, Duration.ofMillis(200), Duration.ZERO, System::nanoTime).check();
  }

  @Test
  void shouldBeReachableOnPong() {
    assertTrue(check(() -> CompletableFuture.completedFuture("PONG")).reachable());
  }

  @Test
  void shouldBeUnreachableOnAnyOtherAnswer() {
    HealthCheck.Result result = check(() -> CompletableFuture.completedFuture("LOADING"));
    assertFalse(result.reachable());
    assertEquals("PING answered LOADING instead of PONG", result.detail());
  }

  @Test
  void shouldBeUnreachableWhenThePingFails() {
    HealthCheck.Result result = check(() -> CompletableFuture.failedFuture(new IllegalStateException("refused")));
    assertFalse(result.reachable());
    assertEquals("IllegalStateException: refused", result.detail());
  }

  @Test
  void shouldBeUnreachableWhenThePingCannotBeSent() {
    HealthCheck.Result result = check(() -> {
      throw new IllegalStateException("connection closed");
    });
    assertFalse(result.reachable());
  }

  @Test
  void shouldBeUnreachableAfterTheTimeoutWhenNoAnswerComes() {
    CompletableFuture<String> never = new CompletableFuture<>();

    HealthCheck.Result result = check(() -> never);

    assertFalse(result.reachable());
    assertEquals("no answer to PING within 200 ms", result.detail());
    assertTrue(never.isCancelled(), "the abandoned ping is cancelled");
  }
}
