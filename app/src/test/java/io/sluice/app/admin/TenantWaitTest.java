package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.dispatcher.dispatch.Waits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tenant's wait toward a provider, over the instances' waits, its quota and now. */
class TenantWaitTest {
  private static final long NOW = 1_800_000_000_000L;

  private static Waits told(Map<String, Long> oldest, int waiting, long drainMillis) {
    return new Waits(5, 0, 0, 0, 0, Map.of(), 0, 0,
        Map.of("pro", new Waits.TierWait(5, NOW - 40_000, drainMillis)), oldest, waiting);
  }

  @Test
  void shouldTakeTheOldestOverInstancesAndTheLaterOfQueueAndQuota() throws Exception {
    List<Map<String, Waits>> instances = List.of(
        Map.of("hooks", told(Map.of("acme", NOW - 30_000), 1, 4_000)),
        Map.of("hooks", told(Map.of("acme", NOW - 12_000, "globex", NOW - 40_000), 2, 9_000)),
        Map.of("other", told(Map.of("acme", NOW - 90_000), 1, 60_000)));

    JsonNode w = new ObjectMapper().readTree(TenantWait.of("acme", "pro", "hooks", instances,
        NOW + 6_000, NOW).toString());

    assertEquals(30_000, w.get("oldestQueuedAgeMillis").asLong());
    assertEquals("2027-01-15T07:59:30Z", w.get("oldestQueuedSince").asText());
    assertTrue(w.get("oldestKnown").asBoolean());
    assertEquals(9_000, w.get("tierDrainMillis").asLong(), "the slowest instance's");
    assertEquals(9_000, w.get("etaMillis").asLong(), "the queue ends after the quota is due");
    assertEquals(16_000, TenantWait.of("acme", "pro", "hooks", instances, NOW + 16_000, NOW)
        .get("etaMillis").asLong(), "the quota due after the queue ends");
    assertTrue(TenantWait.line(w).startsWith("oldest queued 30.0 s"), TenantWait.line(w));
  }

  @Test
  void shouldSayWhenTheOldestIsNotKnownOrNothingWaits() {
    List<Map<String, Waits>> full = List.of(Map.of("hooks",
        told(Map.of("globex", NOW - 40_000), 70, 1_000)));
    assertFalse(TenantWait.of("acme", "pro", "hooks", full, null, NOW).get("oldestKnown")
        .asBoolean(), "an instance tells fewer tenants than wait there");
    JsonNode none = TenantWait.of("acme", "pro", "hooks", List.of(), null, NOW);
    assertFalse(none.has("oldestQueuedSince"));
    assertTrue(none.get("oldestKnown").asBoolean());
    assertEquals(0, none.get("etaMillis").asLong());
    assertEquals("nothing queued in a dispatcher; backlog through by 2027-01-15T08:00:00Z (in "
        + "0.0 s: its tier's queue 0.0 s)", TenantWait.line(none));
  }

  @Test
  void shouldGiveNoEtaWhenALaneCannotTell() {
    JsonNode w = TenantWait.of("acme", "pro", "hooks",
        List.of(Map.of("hooks", told(Map.of("acme", NOW - 1_000), 1, -1))), NOW + 2_000, NOW);
    assertFalse(w.has("etaAt"));
    assertTrue(TenantWait.line(w).contains("no estimate"), TenantWait.line(w));
  }
}
