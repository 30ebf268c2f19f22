package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The status for a person at a terminal. */
class StatusTextTest {
  @Test
  @DisplayName("every part of the JSON shows as a line: rates, pause, stages, dead letters, tenant, errors")
  void render() throws Exception {
    String text = StatusText.render(new ObjectMapper().readTree("""
        {"at":"2026-11-26T16:00:00Z",
         "providers":{"payments":{"configuredRate":50.0,"pacedRate":20.0,"paused":true,
           "learnedLimits":[{"name":"s","unit":"calls","quota":20,"windowMillis":1000,"expiresAt":"x"}],
           "pauses":[{"provider":"payments","tenant":null,"by":"ana@h","at":"t0","reason":"INC-1"}]}},
         "redisLoss":{"lostAt":"2026-11-26T15:59:40Z","slotsLost":64,"slotsSampled":64,
           "admissionsFrom":"2026-11-26T16:00:40Z","refilledBy":"2026-11-26T16:00:50Z"},
         "waiting":{"byStage":{"inbound":3,"delay 5s":7,"ready":120}},
         "deadLettersLastHour":{"byReason":{"expired":4},"truncated":false},
         "tenant":{"name":"acme","tier":"pro","listed":true,"source":"registry",
           "buckets":{"payments":{"capacity":60.0,"refillPerSecond":20.0,"level":-3.5}}},
         "errors":{"deadLettersLastHour":"Kafka did not answer"}}
        """));
    for (String line : new String[] {
        "payments: 50.00/s configured, paced at 20.00/s, PAUSED",
        "learned: 20 calls per 1000 ms (s)",
        "pause: provider payments by ana@h at t0 (INC-1)",
        "redis lost its data at 2026-11-26T15:59:40Z (64 of 64 slots read)",
        "new admissions wait until about 2026-11-26T16:00:40Z, buckets full by 2026-11-26T16:00:50Z",
        "delay 5s: 7", "ready: 120", "expired: 4",
        "tenant acme: tier pro (from the tenant registry)", "bucket toward payments: -3.5 of 60 (refill 20.00/s)",
        "could not read deadLettersLastHour: Kafka did not answer"}) {
      assertTrue(text.contains(line), "missing \"" + line + "\" in\n" + text);
    }
  }
}
