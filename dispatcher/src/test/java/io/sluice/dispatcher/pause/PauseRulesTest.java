package io.sluice.dispatcher.pause;

import static io.sluice.dispatcher.pause.PauseRules.Decision.CALL;
import static io.sluice.dispatcher.pause.PauseRules.Decision.EXPIRE;
import static io.sluice.dispatcher.pause.PauseRules.Decision.HOLD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** "May this event be called now, given the pauses?" */
class PauseRulesTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  private static Pause pause(PauseScope scope) {
    return new Pause(scope, "ops@host", NOW.minusSeconds(60), "partner incident");
  }

  private static PauseRules rules(PauseScope... scopes) {
    return PauseRules.of(java.util.Arrays.stream(scopes).map(PauseRulesTest::pause).toList());
  }

  @Test
  @DisplayName("with no pause every event is called")
  void noPause() {
    assertEquals(CALL, PauseRules.NONE.decide("payments", "acme", null, NOW));
  }

  @Test
  @DisplayName("a provider's pause holds every tenant's events to it, and no other provider's")
  void providerPause() {
    PauseRules r = rules(PauseScope.provider("payments"));
    assertEquals(HOLD, r.decide("payments", "acme", null, NOW));
    assertEquals(HOLD, r.decide("payments", "globex", NOW.plusSeconds(5), NOW));
    assertEquals(CALL, r.decide("email", "acme", null, NOW));
    assertTrue(r.pausesAllOf("payments"));
    assertFalse(r.pausesAllOf("email"));
  }

  @Test
  @DisplayName("a tenant's pause holds its events to every provider, and no other tenant's")
  void tenantPause() {
    PauseRules r = rules(PauseScope.tenant("acme"));
    assertEquals(HOLD, r.decide("payments", "acme", null, NOW));
    assertEquals(HOLD, r.decide("email", "acme", null, NOW));
    assertEquals(CALL, r.decide("payments", "globex", null, NOW));
    assertFalse(r.pausesAllOf("payments"), "other tenants still call payments");
    assertEquals(1, r.concerning("email").size(), "a tenant's pause concerns every provider");
  }

  @Test
  @DisplayName("a tenant's pause on one provider (an endpoint's) holds only that pair")
  void endpointPause() {
    PauseRules r = rules(PauseScope.of("payments", "acme"));
    assertEquals(HOLD, r.decide("payments", "acme", null, NOW));
    assertEquals(CALL, r.decide("email", "acme", null, NOW));
    assertEquals(CALL, r.decide("payments", "globex", null, NOW));
    assertEquals(List.of(), r.concerning("email"));
  }

  @Test
  @DisplayName("holds agrees with covering for every kind of scope, among many pauses")
  void holdsIsCovering() {
    List<Pause> many = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      many.add(pause(PauseScope.tenant("t" + i)));
      many.add(pause(PauseScope.provider("p" + i)));
      many.add(pause(PauseScope.of("q" + i, "u" + i)));
    }
    PauseRules r = PauseRules.of(many);
    for (String provider : List.of("p7", "q7", "q8", "x")) {
      for (String tenant : List.of("t7", "u7", "u8", "y")) {
        assertEquals(r.covering(provider, tenant).isPresent(), r.holds(provider, tenant),
            provider + "/" + tenant);
      }
    }
    assertTrue(r.holds("q7", "u7"));
    assertFalse(r.holds("q7", "u8"));
    assertFalse(r.holds("x", "y"));
  }

  @Test
  @DisplayName("a held event past its deadline expires; one due later, or exactly now, waits")
  void deadlineStillEndsAHeldEvent() {
    PauseRules r = rules(PauseScope.provider("payments"));
    assertEquals(EXPIRE, r.decide("payments", "acme", NOW.minusMillis(1), NOW));
    assertEquals(HOLD, r.decide("payments", "acme", NOW, NOW));
    assertEquals(HOLD, r.decide("payments", "acme", NOW.plusMillis(1), NOW));
  }

  @Test
  @DisplayName("an event no pause covers is called even past its deadline: the intake and the judge end it, not the pauses")
  void deadlineOfAnUnpausedEventIsNotThePausesConcern() {
    PauseRules r = rules(PauseScope.provider("payments"));
    assertEquals(CALL, r.decide("email", "acme", NOW.minusSeconds(1), NOW));
  }

  @Test
  @DisplayName("the same pauses read in any order are the same rules, one per scope")
  void orderAndDuplicates() {
    PauseRules a = rules(PauseScope.tenant("acme"), PauseScope.provider("payments"));
    PauseRules b = rules(PauseScope.provider("payments"), PauseScope.tenant("acme"),
        PauseScope.provider("payments"));
    assertEquals(a, b);
    assertEquals(2, b.all().size());
    assertEquals(Optional.of("*/acme"), // sorted by field: "*" before letters
        b.covering("payments", "acme").map(p -> p.scope().field()));
  }

  @Test
  @DisplayName("a scope names a provider, a tenant, or both, each [A-Za-z0-9._:-]{1,128}")
  void scopes() {
    assertThrows(IllegalArgumentException.class, () -> PauseScope.of(null, null));
    assertThrows(IllegalArgumentException.class, () -> PauseScope.provider("pay/ments"));
    assertThrows(IllegalArgumentException.class, () -> PauseScope.tenant("*"));
    assertThrows(IllegalArgumentException.class, () -> PauseScope.tenant("a".repeat(129)));
    assertThrows(IllegalArgumentException.class, () -> PauseScope.tenant(""));
    PauseScope.tenant("a".repeat(128));
    for (PauseScope s : List.of(PauseScope.provider("p-1"), PauseScope.tenant("t:1"),
        PauseScope.of("p.1", "t_1"))) {
      assertEquals(Optional.of(s), PauseScope.parse(s.field()), s.field());
    }
    assertEquals(Optional.empty(), PauseScope.parse("*/*"));
    assertEquals(Optional.empty(), PauseScope.parse("a/b/c"));
    assertEquals(Optional.empty(), PauseScope.parse("no-slash"));
    assertEquals(Optional.empty(), PauseScope.parse("p\n/t"));
  }
}
