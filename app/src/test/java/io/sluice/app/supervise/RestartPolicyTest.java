package io.sluice.app.supervise;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RestartPolicyTest {
  private final RestartPolicy policy = new RestartPolicy(3, Duration.ofMinutes(10),
      Duration.ofSeconds(1), Duration.ofSeconds(3));

  @Test
  @DisplayName("the n-th failure within the window waits twice as long as the one before, up to the longest backoff")
  void backoffDoublesToItsCap() {
    assertEquals(new RestartPolicy.Restart(1000, 1), policy.decide(List.of(0L), 0));
    assertEquals(new RestartPolicy.Restart(2000, 2), policy.decide(List.of(0L, 5_000L), 5_000));
    assertEquals(new RestartPolicy.Restart(3000, 3), policy.decide(List.of(0L, 5_000L, 9_000L), 9_000),
        "4 s capped at 3 s");
  }

  @Test
  @DisplayName("one failure more than the restarts allowed within the window gives up")
  void givesUpPastTheLimit() {
    assertEquals(new RestartPolicy.GiveUp(4),
        policy.decide(List.of(0L, 1_000L, 2_000L, 3_000L), 3_000));
  }

  @Test
  @DisplayName("failures older than the window no longer count: a role failing now and then is restarted for ever")
  void oldFailuresForgotten() {
    long tenMinutes = Duration.ofMinutes(10).toMillis();
    assertEquals(new RestartPolicy.Restart(1000, 1),
        policy.decide(List.of(0L, 1_000L, 2_000L, tenMinutes + 2_000L), tenMinutes + 2_000L));
  }
}
