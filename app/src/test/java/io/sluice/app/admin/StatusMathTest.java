package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.Quota;
import io.sluice.config.Rate;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The arithmetic of the status: lag, bucket levels, stage names. */
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
  @DisplayName("bucket level: stored tokens refilled since their time on Redis's clock, capped")
  void level() {
    Quota q = new Quota(10, new Rate(2));
    // Redis TIME 1000 s + 500000 us; stored 3 tokens at 999.5 s: +1 s * 2/s = 5.
    assertEquals(5.0, StatusReader.level(List.of("1000", "500000", "3", "999500000"), q), 1e-9);
    assertEquals(-4.0, StatusReader.level(List.of("1000", "0", "-4", "1000000000"), q), 1e-9,
        "reserved ahead");
    assertEquals(10.0, StatusReader.level(List.of("2000", "0", "3", "1000000000"), q), 1e-9);
    assertEquals(10.0, StatusReader.level(List.of("2000", "0", "", ""), q), 1e-9, "never used");
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
