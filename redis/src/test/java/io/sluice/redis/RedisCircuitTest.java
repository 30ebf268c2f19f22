package io.sluice.redis;

import static io.sluice.redis.RedisCircuit.State.CLOSED;
import static io.sluice.redis.RedisCircuit.State.HALF_OPEN;
import static io.sluice.redis.RedisCircuit.State.OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The circuit's protocol on a fake clock: backoff 100 ms doubling to 400, probe timeout 1 s. */
class RedisCircuitTest {
  private static final IllegalStateException DOWN = new IllegalStateException("connection refused");

  private final AtomicLong clock = new AtomicLong(0);
  private final List<RedisCircuit.State> transitions = new ArrayList<>();
  private final RedisCircuit circuit =
      new RedisCircuit("test", 100, 400, 1_000, clock::get, transitions::add);

  private RedisCircuit.Permit permit() {
    return circuit.tryAcquire().orElseThrow(() -> new AssertionError("refused at " + clock.get()));
  }

  private boolean refused() {
    return circuit.tryAcquire().isEmpty();
  }

  private void at(long millis) {
    clock.set(millis);
  }

  @Test
  void shouldOpenOnAFailureAndLetOneProbeThroughAfterTheBackoff() {
    permit().failed(DOWN);
    at(50);
    assertTrue(refused(), "open: refused until the backoff passes");
    at(100);
    RedisCircuit.Permit probe = permit();
    assertTrue(probe.isProbe());
    at(101);
    assertTrue(refused(), "only one probe at a time");
    probe.succeeded();
    assertFalse(permit().isProbe(), "closed again");
    assertEquals(List.of(OPEN, HALF_OPEN, CLOSED), transitions);
  }

  @Test
  @org.junit.jupiter.api.DisplayName("a script's own error is Redis answering: the circuit stays "
      + "closed; a reply saying Redis cannot serve opens it")
  void shouldOpenOnlyWhenRedisCannotServe() {
    permit().failed(new CompletionException(new io.lettuce.core.RedisCommandExecutionException(
        "ERR user_script:1: Script attempted to access nonexistent global variable 'x'")));
    permit().failed(new io.lettuce.core.RedisCommandExecutionException(
        "WRONGTYPE Operation against a key holding the wrong kind of value"));
    assertFalse(refused(), "one call's own error: every other call still goes to Redis");
    assertEquals(List.of(), transitions);
    permit().failed(new io.lettuce.core.RedisCommandExecutionException(
        "LOADING Redis is loading the dataset in memory"));
    assertTrue(refused(), "Redis cannot serve: open");
    assertEquals(List.of(OPEN), transitions);
  }

  @Test
  void shouldTreatTimeoutsAndLostConnectionsAsOutages() {
    assertTrue(RedisCircuit.isOutage(new io.lettuce.core.RedisCommandTimeoutException("timed out")));
    assertTrue(RedisCircuit.isOutage(new io.lettuce.core.RedisConnectionException("refused")));
    assertTrue(RedisCircuit.isOutage(new io.lettuce.core.RedisCommandExecutionException(
        "READONLY You can't write against a read only replica.")));
    assertFalse(RedisCircuit.isOutage(new CompletionException(
        new io.lettuce.core.RedisCommandExecutionException("ERR Error running script"))));
  }

  @Test
  void shouldDoubleTheBackoffAfterAFailedProbeUpToTheMaximum() {
    permit().failed(DOWN);
    at(100);
    permit().failed(DOWN); // backoff 200
    at(299);
    assertTrue(refused());
    at(300);
    permit().failed(DOWN); // 400
    at(700);
    permit().failed(DOWN); // capped at 400
    at(1099);
    assertTrue(refused());
    at(1100);
    permit().succeeded();
    assertEquals(CLOSED, circuit.state());
    permit().failed(DOWN); // a new outage starts again from 100
    at(1200);
    assertTrue(permit().isProbe());
  }

  @Test
  void shouldCountAProbeNeverReportedAsFailedAtItsTimeout() {
    permit().failed(DOWN);
    at(100);
    permit(); // the probe's holder never reports back
    at(1_099);
    assertEquals(HALF_OPEN, circuit.state());
    at(1_100);
    assertEquals(OPEN, circuit.state(), "a lost probe fails at its deadline");
    assertTrue(circuit.status().lastFailure().contains("not answered"), circuit.status().toString());
    at(1_299);
    assertTrue(refused(), "and the backoff doubled (200 ms)");
    at(1_300);
    permit().succeeded();
    assertEquals(CLOSED, circuit.state(), "the next probe closes it: never stuck half-open");
  }

  @Test
  void shouldIgnoreALateReportOfACallFromAnEarlierState() {
    RedisCircuit.Permit before = permit();
    RedisCircuit.Permit alsoBefore = permit();
    RedisCircuit.Permit failing = permit();
    failing.failed(DOWN);
    before.succeeded();
    assertEquals(OPEN, circuit.state(), "a call sent before the failure is no probe");
    at(100);
    RedisCircuit.Permit probe = permit();
    at(1_100);
    circuit.state(); // the probe timed out
    probe.succeeded();
    assertEquals(OPEN, circuit.state(), "a timed-out probe's report is stale");
    at(1_300);
    permit().succeeded();
    alsoBefore.failed(DOWN);
    assertEquals(CLOSED, circuit.state(), "a failure of a call sent before the recovery is stale");
  }

  @Test
  void shouldCountOnlyAPermitsFirstReport() {
    permit().failed(DOWN);
    at(100);
    RedisCircuit.Permit probe = permit();
    probe.succeeded();
    probe.failed(DOWN);
    assertEquals(CLOSED, circuit.state());
  }

  @Test
  void shouldReportEachTransitionOnceNotOncePerCall() {
    RedisCircuit.Permit a = permit();
    RedisCircuit.Permit b = permit();
    a.failed(DOWN);
    b.failed(DOWN);
    at(1);
    refused();
    refused();
    assertEquals(List.of(OPEN), transitions);
  }

  @Test
  void shouldReportTheOutcomeOfEveryCallItRuns() {
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<String> failing = circuit
        .call(() -> CompletableFuture.<String>failedFuture(DOWN)).toCompletableFuture();
    assertTrue(failing.isCompletedExceptionally());
    assertEquals(OPEN, circuit.state());
    CompletableFuture<String> refusedCall = circuit.call(() -> {
      calls.incrementAndGet();
      return CompletableFuture.completedFuture("OK");
    }).toCompletableFuture();
    CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
        refusedCall::join);
    assertInstanceOf(RedisCircuit.OpenException.class, e.getCause());
    assertEquals(0, calls.get(), "refused: Redis is not called");

    at(100);
    CompletableFuture<String> answer = new CompletableFuture<>();
    CompletableFuture<String> probe = circuit.call(() -> answer).toCompletableFuture();
    assertEquals(HALF_OPEN, circuit.state());
    answer.complete("OK");
    assertEquals("OK", probe.join());
    assertEquals(CLOSED, circuit.state(), "the probe run through call() was reported");

    circuit.call(() -> {
      throw DOWN;
    });
    assertEquals(OPEN, circuit.state(), "a call that throws is a failure");
  }

  @Test
  void shouldShowItsStateForHealth() {
    permit().failed(DOWN);
    RedisCircuit.Status s = circuit.status();
    assertEquals(OPEN, s.state());
    assertEquals(100, s.nextProbeAtMillis());
    assertTrue(s.lastFailure().contains("connection refused"), s.lastFailure());
  }
}
