package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gate's circuit openings read from its log: the windows its onRedisDown policy decided. */
class CircuitOutagesTest {
  private static final String T = "2026-11-29 13:29:";

  private static long at(String secondsAndMillis) {
    return java.time.Instant.parse("2026-11-29T13:29:" + secondsAndMillis + "Z").toEpochMilli();
  }

  @Test
  void shouldReadEachOpeningUntilRedisAnswersAgain() {
    // Chaos seed 1702's gate log: Redis up, the machine loaded, two script calls timed out.
    List<long[]> w = CircuitOutages.of(List.of(
        T + "02.614 INFO  [main] i.s.r.RedisTimeClock: Redis TIME answers: not-befores are judged on Redis's clock",
        T + "20.333 WARN  [StreamThread-1] i.s.r.RedisCircuit: gate: Redis failed (TimeoutException); each provider's onRedisDown policy applies",
        "\tat some.stack.Frame(Frame.java:1)",
        T + "20.618 WARN  [StreamThread-1] i.s.r.RedisCircuit: gate: Redis answers again after 285 ms; limits are enforced in Redis",
        T + "22.502 WARN  [StreamThread-1] i.s.r.RedisCircuit: gate: Redis failed (TimeoutException); each provider's onRedisDown policy applies",
        T + "22.774 WARN  [StreamThread-1] i.s.r.RedisCircuit: gate: Redis answers again after 272 ms; limits are enforced in Redis"),
        ZoneOffset.UTC);
    assertEquals(2, w.size());
    assertArrayEquals(new long[] {at("20.333"), at("20.618")}, w.get(0));
    assertArrayEquals(new long[] {at("22.502"), at("22.774")}, w.get(1));
  }

  @Test
  void shouldEndAnOpeningWithItsProcessWhenTheGateIsKilledWhileOpen() {
    List<long[]> w = CircuitOutages.of(List.of(
        T + "10.000 WARN  [t] i.s.r.RedisCircuit: gate: Redis failed (RedisException: Currently not connected.)",
        T + "10.300 INFO  [t] i.s.r.RedisCircuit: gate: Redis probe failed (RedisException); next probe in 500 ms",
        T + "14.000 INFO  [main] i.s.r.RedisTimeClock: Redis TIME answers: not-befores are judged on Redis's clock",
        T + "30.000 WARN  [t] i.s.r.RedisCircuit: gate: Redis failed (TimeoutException)",
        T + "31.000 INFO  [t] something else"), ZoneOffset.UTC);
    assertEquals(2, w.size());
    assertArrayEquals(new long[] {at("10.000"), at("14.000")}, w.get(0));
    assertArrayEquals(new long[] {at("30.000"), at("31.000")}, w.get(1), "open at the log's end");
  }

  @Test
  void shouldFindNoWindowInALogWithoutOpenings() {
    assertEquals(0, CircuitOutages.of(List.of(T + "02.614 INFO  [main] started", "garbage"),
        ZoneOffset.UTC).size());
  }
}
