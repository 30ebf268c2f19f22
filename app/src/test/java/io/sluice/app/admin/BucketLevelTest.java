package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.gate.limiter.BucketSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The level {@code status} shows is the one the gate decides by: read from the hash the script
 * stores, through the gate's math. Each row a stored bucket at a time, the level, and what the
 * old refill formula (stored tokens refilled since, capped) showed where it differs.
 * {@code StatusBucketIT} holds the same reading to the script on a redis-server.
 */
class BucketLevelTest {
  /** 10 units, 2 a second, reservations up to a second ahead. */
  static final BucketSpec SPEC = new BucketSpec(10, 2, 1_000_000);
  static final long T = 1_000_000_000_000L;

  @Test
  @DisplayName("stored tokens refilled since their time on Redis's clock, at most the capacity")
  void refilledAndCapped() {
    assertEquals(5.0, BucketLevel.at(Map.of("tokens", "3", "ts", Long.toString(T)), "0", SPEC, T + 1_000_000), 1e-9);
    assertEquals(-4.0, BucketLevel.at(Map.of("tokens", "-4", "ts", Long.toString(T), "rate", "2"), "0", SPEC, T), 1e-9,
        "reserved ahead");
    assertEquals(10.0, BucketLevel.at(Map.of("tokens", "3", "ts", Long.toString(T)), "0", SPEC, T + 60_000_000), 1e-9);
  }

  @Test
  @DisplayName("a bucket Redis does not have: full, unless its slot's data was lost (then as the script rebuilds it)")
  void missing() {
    assertEquals(10.0, BucketLevel.at(Map.of(), "0", SPEC, T), 1e-9, "never used");
    // Lost now: empty with a reach (1 s + 1 s) of reservations: -2 s * 2/s. The old formula: 10.
    assertEquals(-4.0, BucketLevel.at(Map.of(), null, SPEC, T), 1e-9, "marker missing: the script stamps the loss now");
    assertEquals(2.0, BucketLevel.at(Map.of(), Long.toString(T - 3_000_000), SPEC, T), 1e-9, "lost 3 s ago: -4 + 6");
  }

  @Test
  @DisplayName("units a lease holds lower the cap until its deadline; after it the bucket refills to its capacity (the old formula: 10)")
  void leaseHoldsUnits() {
    long deadline = T + 20_000_000;
    Map<String, String> leased = Map.of("tokens", "2", "ts", Long.toString(T), "seq", "1", "held", "4", "live", "1",
        "sweep", Long.toString(deadline), "hold_end", Long.toString(deadline),
        "lease:1", deadline + " 4 4 " + T + " 6");
    assertEquals(6.0, BucketLevel.at(leased, "0", SPEC, T + 10_000_000), 1e-9, "refilled only to 10 - 4 held");
    // The held units were the lease holder's to spend: they do not come back, the cap lifts.
    assertEquals(6.0, BucketLevel.at(leased, "0", SPEC, deadline), 1e-9, "at the deadline");
    assertEquals(10.0, BucketLevel.at(leased, "0", SPEC, deadline + 2_000_000), 1e-9, "2 s after: 6 + 4");
  }

  @Test
  @DisplayName("an old line after a raise slows the refill until it ends (the old formula: 4)")
  void oldLine() {
    // Raised to 2/s while reservations sold at 1.5/s run until T + 4 s: 2 s at 0.5/s.
    Map<String, String> raised = Map.of("tokens", "0", "ts", Long.toString(T), "rate", "2",
        "old", "1.5 " + (T + 4_000_000));
    assertEquals(1.0, BucketLevel.at(raised, "0", SPEC, T + 2_000_000), 1e-9);
  }

  @Test
  @DisplayName("a bucket rebuilt after a loss, its quota raised since: its debt was sold at a rate Redis lost, so nothing new until lost_end (else 0: an old line at the stored rate)")
  void raisedAfterALoss() {
    // Rebuilt at 1/s under a reach of 2 s (-2), the lost reservations due until T + 2 s; the quota
    // is 2/s now. Read as sold at 1/s, the raise would sell 1/s beside them at once (level 0).
    Map<String, String> rebuilt = Map.of("tokens", "-2", "ts", Long.toString(T), "rate", "1",
        "lost_end", Long.toString(T + 2_000_000));
    assertEquals(-4.0, BucketLevel.at(rebuilt, "0", SPEC, T), 1e-9, "folded back: 2 s at 2/s");
  }

  @Test
  @DisplayName("the status reply: Redis's TIME, the hash as a flat list, the marker (null: missing)")
  void reply() {
    String seconds = Long.toString(T / 1_000_000 + 1);
    List<Object> reply = new ArrayList<>(List.of(seconds, "0", List.of("tokens", "3", "ts", Long.toString(T)), "0"));
    assertEquals(5.0, StatusReader.level(reply, SPEC), 1e-9);
    List<Object> lost = new ArrayList<>(List.of(seconds, "0", List.of()));
    lost.add(null);
    assertEquals(-4.0, StatusReader.level(lost, SPEC), 1e-9);
  }

  @Test
  @DisplayName("when a unit asked now is due: at once with one to spare, else after the units sold ahead (their reservations), or at its ticket's turn")
  void due() {
    assertEquals(T, BucketLevel.dueMicros(Map.of("tokens", "3", "ts", Long.toString(T)), "0", SPEC, T));
    // Level -1: one unit sold ahead; the next is the second: (1 - -1) / 2/s = 1 s.
    assertEquals(T + 1_000_000, BucketLevel.dueMicros(
        Map.of("tokens", "-1", "ts", Long.toString(T), "rate", "2"), "0", SPEC, T));
    // Level -2: the horizon (1 s) is sold out; a unit gets a ticket (back in about 0.5 s, to be
    // charged then), and is due when the refill reaches it: (1 - -2) / 2/s = 1.5 s.
    assertEquals(T + 1_500_000, BucketLevel.dueMicros(
        Map.of("tokens", "-2", "ts", Long.toString(T), "rate", "2"), "0", SPEC, T));
  }
}
