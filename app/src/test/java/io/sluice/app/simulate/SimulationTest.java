package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The simulation's specifications: small scenarios whose answers are worked out by hand from the
 * bucket's and the leak's rules, so each number says the simulation takes the product's decisions.
 */
class SimulationTest {
  /** A provider fast enough (one call per 10 us) that only the quota makes anyone wait. */
  private static final String FAST = "100000/s";

  @Test
  @DisplayName("a tenant at 10/s with capacity 10 sends 30 at once: 10 now, then one each 100 ms up to 2 s")
  void shouldDelayABurstExactlyAsTheBucketSays() {
    Simulation.Outcome o = Scenario.run(Scenario.burst("a", 30, 0),
        Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0);
    Tally a = o.tenants().get("a");
    assertEquals(30, a.calls());
    // Lateness sorted: ten 0s (the bucket held 10), then 100, 200, ..., 2000 ms (each unit's due
    // time at 10/s). The 15th of 30 is the 5th reserved: 500 ms; the 30th, 2000 ms.
    assertEquals(500, a.lateness().quantile(0.5));
    assertEquals(2000, a.lateness().quantile(0.99));
    assertEquals(2000, a.lateness().max());
    assertEquals(0, a.deadTotal());
  }

  @Test
  @DisplayName("two tiers weighted 3:1 backlogged at a provider of 4/s: gold is served 3 of each 4 slots")
  void shouldShareAContendedProviderByTierWeight() {
    List<String> lines = new ArrayList<>(Scenario.burst("g", 40, 0));
    lines.addAll(Scenario.burst("f", 40, 0));
    Simulation.Outcome o = Scenario.run(lines,
        Scenario.config("4/s", "{ capacity: 1000, refill: 1000/s }", "g: { tier: gold }")).get(0);
    // 80 calls, one each 250 ms: the last at 79 * 250 = 19,750 ms, and it is free's (gold's 40 are
    // done first, at 3 a round of 4 slots: its 40th in the 14th round, about 13.25 s).
    assertEquals(19_750, o.tenants().get("f").lateness().max());
    long goldDone = o.tenants().get("g").lateness().max();
    assertTrue(goldDone >= 13_000 && goldDone <= 13_500, "gold's last call at " + goldDone + " ms");
    // At gold's end free had about a quarter of the slots so far: 53 slots, 40 gold and 13 free.
    assertEquals(40, o.tiers().get("gold").calls());
    assertEquals(4, o.providers().get("p").maxPerSecond(), "never above the provider's 4/s in a second");
  }

  @Test
  @DisplayName("a candidate that raises the quota lowers the same traffic's lateness")
  void shouldShowACandidateQuotaBesideTheCurrentOne() {
    List<Simulation.Outcome> o = Scenario.run(Scenario.burst("a", 30, 0),
        Scenario.config(FAST, "{ capacity: 10, refill: 10/s }"),
        Scenario.config(FAST, "{ capacity: 10, refill: 20/s }"));
    assertEquals(2000, o.get(0).tenants().get("a").lateness().quantile(0.99));
    // At 20/s the 20 reserved units fall due each 50 ms: the last at 1 s.
    assertEquals(1000, o.get(1).tenants().get("a").lateness().quantile(0.99));
  }

  @Test
  @DisplayName("an event its quota brings after its deadline is dead at the gate, deadline_unreachable")
  void shouldDeadLetterWhatItsQuotaCannotBringInTime() {
    List<String> lines = new ArrayList<>(Scenario.burst("a", 10, 0));
    // The 11th unit falls due at 100 ms; its deadline is 50 ms after arrival.
    lines.add(Scenario.line("a", "late", 0, ", \"deadline\": \"2023-11-14T22:13:20.050Z\""));
    Tally a = Scenario.run(lines, Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0).tenants().get("a");
    assertEquals(10, a.calls());
    assertEquals(Map.of(Reason.DEADLINE_UNREACHABLE, 1L), a.dead());
    assertEquals(1, a.deadlineMisses());
  }

  @Test
  @DisplayName("an event in time at the gate but late at a slow provider expires there")
  void shouldExpireWhatTheProviderCannotCallInTime() {
    List<String> lines = new ArrayList<>(Scenario.burst("a", 3, 0));
    // At 1/s the 4th call would be at 3 s; its deadline is 2.5 s after arrival.
    lines.add(Scenario.line("a", "late", 0, ", \"deadline\": \"2023-11-14T22:13:22.500Z\""));
    Tally a = Scenario.run(lines, Scenario.config("1/s", "{ capacity: 100, refill: 100/s }")).get(0).tenants().get("a");
    assertEquals(3, a.calls());
    assertEquals(Map.of(Reason.EXPIRED, 1L), a.dead());
  }

  @Test
  @DisplayName("values the gate refuses are dead letters by reason, never calls")
  void shouldDeadLetterInvalidAndUnknownAsTheGateDoes() {
    List<String> lines = List.of(
        Scenario.line("a", "ok", 0),
        "{\"ts\": " + Scenario.T0 + ", \"id\": \"x\", \"tenant\": \"a\", \"provider\": \"nope\", \"payload\": {}}",
        "{\"ts\": " + Scenario.T0 + ", \"id\": \"y\", \"tenant\": \"a\"}",
        "{\"ts\": " + Scenario.T0 + ", \"id\": \"z\", \"tenant\": \"a\", \"provider\": \"p\", \"cost\": 0}");
    Simulation.Outcome o = Scenario.run(lines, Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0);
    assertEquals(1, o.tenants().get("a").calls());
    long dead = o.tenants().get("a").deadTotal() + o.unattributed().deadTotal();
    assertEquals(3, dead, "tenant's: " + o.tenants().get("a").dead() + ", others: " + o.unattributed().dead());
  }

  @Test
  @DisplayName("an event asking for a time waits unpaid until it, and its lateness counts from it")
  void shouldHoldAScheduledEventUntilItsTime() {
    List<String> lines = List.of(Scenario.line("a", "later", 0, ", \"delay\": \"3s\""));
    Tally a = Scenario.run(lines, Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0).tenants().get("a");
    assertEquals(Map.of(), a.dead());
    assertEquals(1, a.calls());
    assertEquals(0, a.lateness().max(), "called at its time, not 3 s after its arrival");
  }

  @Test
  @DisplayName("a pipeline delay of 2.5 s: the burst reaches the gate 2.5 s after its records' time, and each call is 2.5 s later")
  void shouldAddThePipelinesOwnDelayToEveryEvent() {
    Tally a = Scenario.run(Scenario.burst("a", 30, 0), Duration.ofMillis(2500),
        Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0).tenants().get("a");
    assertEquals(30, a.calls());
    // The bucket's answer is the same (ten at once, then one each 100 ms), all 2.5 s on; a
    // quantile above 512 ms reads the low end of its bucket (8 ms wide from 2,048 to 4,096 ms).
    assertEquals(2496, a.lateness().quantile(0.01), "2,500 ms");
    assertEquals(3000, a.lateness().quantile(0.5), "3,000 ms, a bucket's low end");
    assertEquals(4500, a.lateness().max(), "the max is exact");
  }

  @Test
  @DisplayName("with a pipeline delay, an event that asked for a time is called that delay after it, and one whose deadline falls within the delay expires")
  void shouldAddThePipelinesDelayAfterTheTimeAskedForToo() {
    List<String> lines = List.of(Scenario.line("a", "later", 0, ", \"delay\": \"3s\""),
        Scenario.line("a", "tight", 0, ", \"deadline\": \"2023-11-14T22:13:21.000Z\""));
    Tally a = Scenario.run(lines, Duration.ofSeconds(2),
        Scenario.config(FAST, "{ capacity: 10, refill: 10/s }")).get(0).tenants().get("a");
    assertEquals(1, a.calls());
    assertEquals(2000, a.lateness().max(), "called 2 s after the 3 s it asked for");
    assertEquals(1, a.deadlineMisses(), "its deadline 1 s after its record, the gate sees it at 2 s");
  }

  @Test
  @DisplayName("two providers simulated on two threads come to what one thread makes of them, tenant by tenant")
  void shouldComeToTheSameOnThreadsAsOnOne() {
    SluiceConfig config = ConfigLoader.parse(Scenario.yaml("5/s", "{ capacity: 3, refill: 2/s }", "g: { tier: gold }")
        .replace("providers:\n", "providers:\n  q: { url: \"http://localhost:9/\", rate: 3/s, "
            + "quotas: { gold: { capacity: 2, refill: 4/s }, free: { capacity: 2, refill: 1/s } } }\n"), Map.of());
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      String tenant = i % 3 == 0 ? "g" : "f" + (i % 7);
      String provider = i % 2 == 0 ? "p" : "q";
      lines.add("{\"ts\": " + (Scenario.T0 + 25L * i) + ", \"id\": \"e" + i + "\", \"tenant\": \"" + tenant
          + "\", \"provider\": \"" + provider + "\", \"payload\": {}}");
    }
    lines.add("{\"ts\": " + (Scenario.T0 + 10_000) + ", \"id\": \"bad\", \"tenant\": \"g\"}");
    List<Simulator.Candidate> one = List.of(new Simulator.Candidate("c", config));
    Simulation.Outcome single = Simulator.run(one, Scenario.input(lines), 1000, Duration.ZERO, 1).runs().get(0).outcome();
    Simulation.Outcome sharded = Simulator.run(one, Scenario.input(lines), 1000, Duration.ZERO, 2).runs().get(0).outcome();
    assertEquals(single.events(), sharded.events());
    assertEquals(single.tenants().keySet(), sharded.tenants().keySet());
    single.tenants().forEach((t, s) -> {
      Tally o = sharded.tenants().get(t);
      assertEquals(s.calls(), o.calls(), t);
      assertEquals(s.dead(), o.dead(), t);
      assertEquals(s.lateness().max(), o.lateness().max(), t);
      assertEquals(s.lateness().quantile(0.5), o.lateness().quantile(0.5), t);
      assertEquals(s.lateness().quantile(0.99), o.lateness().quantile(0.99), t);
    });
    assertEquals(single.tiers().get("gold").calls(), sharded.tiers().get("gold").calls());
    assertEquals(single.providers().get("q").maxPerSecond(), sharded.providers().get("q").maxPerSecond());
    assertTrue(single.tenants().get("g").lateness().max() > 10_000, "the quotas and rates make them wait");
  }
}
