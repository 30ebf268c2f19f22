package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The arithmetic of the status: lag and stage names (bucket levels: BucketLevelTest). */
class StatusMathTest {
  @Test
  @DisplayName("lag: end minus the commit; everything retained without a commit; never negative")
  void lag() {
    assertEquals(40, ConsumerLag.lag(100, 60L, 0));
    assertEquals(70, ConsumerLag.lag(100, null, 30), "no commit: all retained records wait");
    assertEquals(50, ConsumerLag.lag(100, 10L, 50), "a commit behind retention: from the start");
    assertEquals(0, ConsumerLag.lag(100, 120L, 0));
  }

  @Test
  @DisplayName("topics are shown as stages")
  void stages() {
    Topics t = new Topics("x.", List.of(Duration.ofSeconds(1), Duration.ofMinutes(5)));
    assertEquals("inbound", StatusReader.stage(t, t.inbound()));
    assertEquals("ready", StatusReader.stage(t, t.ready()));
    assertEquals("delay 5m", StatusReader.stage(t, t.delay(Duration.ofMinutes(5))));
  }
}
