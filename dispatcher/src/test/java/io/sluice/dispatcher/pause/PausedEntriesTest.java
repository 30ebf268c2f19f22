package io.sluice.dispatcher.pause;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Where a dispatcher holds paused events, on a fake clock. */
class PausedEntriesTest {
  private record Ev(String id, String provider, String tenant, Instant deadline) {}

  private static final Instant T0 = Instant.parse("2026-11-26T12:00:00Z");
  private static final PauseRules PAYMENTS = rules(PauseScope.provider("payments"));

  private static PauseRules rules(PauseScope... scopes) {
    return PauseRules.of(java.util.Arrays.stream(scopes)
        .map(s -> new Pause(s, "ops", T0, "")).toList());
  }

  private final PausedEntries<Ev> held = new PausedEntries<>(3, Ev::provider, Ev::tenant, Ev::deadline);

  @Test
  @DisplayName("held events come back in the order they were held when the pause is lifted")
  void resumeInOrder() {
    Ev a = new Ev("a", "payments", "acme", null);
    Ev b = new Ev("b", "payments", "globex", null);
    Ev c = new Ev("c", "payments", "acme", null);
    List.of(a, b, c).forEach(e -> assertTrue(held.hold(e)));
    assertTrue(held.sort(PAYMENTS, T0).isEmpty(), "still paused: all stay");
    assertEquals(Map.of("payments", 3), held.heldByProvider());
    PausedEntries.Sorted<Ev> out = held.sort(PauseRules.NONE, T0.plusMillis(100));
    assertEquals(List.of(a, b, c), out.resumed());
    assertEquals(0, held.size());
    assertEquals(Map.of(), held.heldByProvider());
  }

  @Test
  @DisplayName("a narrower pause left in force keeps only what it covers")
  void partialResume() {
    Ev a = new Ev("a", "payments", "acme", null);
    Ev b = new Ev("b", "payments", "globex", null);
    held.hold(a);
    held.hold(b);
    held.sort(PAYMENTS, T0);
    PausedEntries.Sorted<Ev> out = held.sort(rules(PauseScope.tenant("acme")), T0.plusMillis(1));
    assertEquals(List.of(b), out.resumed());
    assertEquals(1, held.size());
  }

  @Test
  @DisplayName("a held event's deadline ends it while the pause lasts, checked once a second")
  void expiresWhileHeld() {
    Ev soon = new Ev("soon", "payments", "acme", T0.plusMillis(500));
    Ev later = new Ev("later", "payments", "acme", T0.plusSeconds(60));
    held.hold(soon);
    held.hold(later);
    assertTrue(held.sort(PAYMENTS, T0).isEmpty());
    assertTrue(held.sort(PAYMENTS, T0.plusMillis(900)).isEmpty(),
        "same rules within a second: not looked at");
    PausedEntries.Sorted<Ev> out = held.sort(PAYMENTS, T0.plus(PausedEntries.SWEEP_EVERY));
    assertEquals(List.of(soon), out.expired());
    assertEquals(List.of(), out.resumed());
    assertEquals(1, held.size());
  }

  @Test
  @DisplayName("each provider holds at most its capacity; others are unaffected")
  void bounded() {
    for (int i = 0; i < 3; i++) {
      assertTrue(held.hold(new Ev("p" + i, "payments", "acme", null)));
    }
    assertFalse(held.hold(new Ev("p3", "payments", "acme", null)));
    assertTrue(held.hold(new Ev("e0", "email", "acme", null)));
    assertEquals(Map.of("payments", 3, "email", 1), held.heldByProvider());
  }

  @Test
  @DisplayName("a revoked partition's held events are taken out for its next owner")
  void removeIf() {
    Ev a = new Ev("a", "payments", "acme", null);
    Ev b = new Ev("b", "email", "acme", null);
    held.hold(a);
    held.hold(b);
    assertEquals(List.of(b), held.removeIf(e -> e.id().equals("b")));
    assertEquals(Map.of("payments", 1), held.heldByProvider());
  }
}
