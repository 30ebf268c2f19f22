package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pauses in /health: shown, bounded, and never a reason to be unready. */
class PausesHealthTest {
  private static final Instant AT = Instant.parse("2026-11-26T16:20:00Z");

  @Test
  @DisplayName("nothing paused: \"none\"")
  void none() {
    assertEquals(HealthCheck.Result.reachable("none"),
        new PausesHealth(() -> PauseRules.NONE, Map::of).check());
  }

  @Test
  @DisplayName("a pause shows who, when and why, and the events held, and the check stays reachable")
  void paused() {
    PauseRules rules = PauseRules.of(List.of(
        new Pause(PauseScope.provider("payments"), "ana@ops-1", AT, "partner 500s")));
    HealthCheck.Result r = new PausesHealth(() -> rules, () -> Map.of("payments", 120)).check();
    assertTrue(r.reachable(), "a pause never makes an instance unready");
    assertEquals("provider payments by ana@ops-1 at 2026-11-26T16:20:00Z (partner 500s); "
        + "held: payments 120", r.detail());
  }

  @Test
  @DisplayName("at most 20 pauses are listed, then how many more")
  void bounded() {
    List<Pause> many = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      many.add(new Pause(PauseScope.tenant(String.format("t%02d", i)), "ana", AT, ""));
    }
    String detail = new PausesHealth(() -> PauseRules.of(many), Map::of).check().detail();
    assertTrue(detail.endsWith("tenant t19 by ana at 2026-11-26T16:20:00Z; and 5 more"), detail);
  }
}
