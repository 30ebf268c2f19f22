package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.dispatcher.dispatch.Waits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What status says a provider's events wait for, over the live dispatcher instances. */
class WaitsViewTest {
  @Test
  void shouldSumTheInstancesAndSayWhatEachWaitIsFor() {
    List<Map<String, Waits>> instances = List.of(
        Map.of("hooks", new Waits(30, 2, 0, 1, 2_000_000L, Map.of("parked", 4_990), 1_000_000L,
            3_000_000L)),
        Map.of("hooks", new Waits(12, 1, 5, 0, 0, Map.of("overflow", 10), 900_000L, 1_500_000L),
            "api", new Waits(1, 1, 0, 0, 0, Map.of(), 0, 0)));

    ObjectNode w = WaitsView.of("hooks", instances);

    assertEquals(2, w.path("instances").asInt());
    assertEquals(42, w.path("queued").asInt());
    assertEquals(5, w.path("heldByPause").asInt());
    assertEquals(1, w.path("lanesHeld").asInt());
    assertEquals("1970-01-01T00:33:20Z", w.path("heldUntil").asText());
    assertEquals(4_990, w.path("parked").path("parked").asInt());
    assertEquals(10, w.path("parked").path("overflow").asInt());
    assertEquals("1970-01-01T00:15:00Z", w.path("nextDue").asText(), "the earliest back");
    assertEquals("1970-01-01T00:50:00Z", w.path("lastDue").asText(), "the latest back");
    assertEquals("42 queued for their slots, 3 in flight, 5 held by a pause, 1 lane(s) held "
        + "(Retry-After, or an endpoint disabled until its probe) until 1970-01-01T00:33:20Z, "
        + "10 parked in Kafka (overflow), 4990 parked in Kafka (parked), back from "
        + "1970-01-01T00:15:00Z to 1970-01-01T00:50:00Z", WaitsView.line(w));
  }

  @Test
  void shouldSayThatAnInstancesCallsWaitForKafkaToAcknowledgeItsSettlements() {
    String why = "12 settlements unacknowledged by Kafka, the oldest for 2400 ms (more than 2000 ms)";
    List<Map<String, Waits>> instances = List.of(
        Map.of("hooks", new Waits(30, 0, 0, 0, 0, Map.of(), 0, 0, Map.of(), Map.of(), 0, why)),
        Map.of("hooks", new Waits(12, 1, 0, 0, 0, Map.of(), 0, 0)));

    ObjectNode w = WaitsView.of("hooks", instances);

    assertEquals(1, w.path("callsWaitOn").asInt());
    assertEquals(why, w.path("callsWait").asText());
    assertEquals("42 queued for their slots, 1 in flight, calls wait on 1 instance(s): " + why,
        WaitsView.line(w));
  }

  @Test
  void shouldSayWhenNoDispatcherReports() {
    assertEquals("no dispatcher instance reports (none running, or Redis away)",
        WaitsView.line(WaitsView.of("hooks", List.of())));
  }
}
