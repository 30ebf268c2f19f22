package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.serde.Json;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice simulate} end to end on files: no Kafka, no Redis. */
class SimulateCommandTest {
  @TempDir
  Path dir;

  private static String config(String refill) {
    return """
        kafka: { bootstrap: "localhost:9092" }
        redis: { uri: "redis://localhost:6379" }
        ladder: [1s, 5s]
        maxAttempts: 5
        reservationHorizon: 60s
        tiers: { free: { weight: 1 } }
        defaultTier: free
        providers:
          p:
            url: "http://localhost:9/"
            rate: 100000/s
            maxInFlight: 16
            timeout: 5s
            quotas:
              free: { capacity: 10, refill: %s }
        gate: { applicationId: "sim-gate" }
        dispatcher: { groupId: "sim-dispatcher" }
        """.formatted(refill);
  }

  private record Ran(int exit, String out, String err) {}

  private static Ran sluice(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
    try {
      int exit = Sluice.execute(args);
      return new Ran(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  private Path events() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      lines.add("{\"ts\": 1700000000000, \"id\": \"e" + i + "\", \"tenant\": \"acme\", \"provider\": \"p\", \"payload\": {}}");
    }
    return Files.write(dir.resolve("events.ndjson"), lines);
  }

  @Test
  @DisplayName("the current config and a candidate side by side, as text, JSON and HTML")
  void shouldReportTheCurrentConfigAndACandidate() throws Exception {
    Path current = Files.writeString(dir.resolve("current.yml"), config("10/s"));
    Path candidate = Files.writeString(dir.resolve("candidate.yml"), config("20/s"));
    Path json = dir.resolve("out.json");
    Path html = dir.resolve("out.html");
    Ran ran = sluice("simulate", "--config", current.toString(), "--candidate", candidate.toString(),
        "--events", events().toString(), "--json", json.toString(), "--html", html.toString());

    assertEquals(0, ran.exit(), ran.err());
    assertTrue(ran.out().contains("| current.yml") && ran.out().contains("| candidate.yml"), ran.out());
    assertTrue(ran.out().contains("acme                     | 30 500ms/2.0s/2.0s 0 0             | 30 250ms/1.0s/1.0s 0 0"), ran.out());
    JsonNode report = Json.mapper().readTree(json.toFile());
    assertEquals(2000, report.at("/runs/0/tenants/acme/latenessMillis/p99").asLong());
    assertEquals(1000, report.at("/runs/1/tenants/acme/latenessMillis/p99").asLong());
    assertTrue(Files.readString(html).contains("<svg"));
  }

  @Test
  @DisplayName("a bad candidate names its file and field; a bad events file names its line")
  void shouldNameWhatIsWrongWithTheInput() throws Exception {
    Path current = Files.writeString(dir.resolve("current.yml"), config("10/s"));
    Path bad = Files.writeString(dir.resolve("bad.yml"), config("ten per second"));
    Ran badConfig = sluice("simulate", "--config", current.toString(), "--candidate", bad.toString(),
        "--events", events().toString());
    assertEquals(Sluice.BAD_INPUT, badConfig.exit());
    assertTrue(badConfig.err().contains("bad.yml") && badConfig.err().contains("refill"), badConfig.err());

    Path noTime = Files.writeString(dir.resolve("no-ts.ndjson"), "{\"ts\": 1}\n{\"id\": \"x\"}\n");
    Ran badEvents = sluice("simulate", "--config", current.toString(), "--events", noTime.toString());
    assertEquals(Sluice.BAD_INPUT, badEvents.exit());
    assertTrue(badEvents.err().contains("line 2"), badEvents.err());
  }

  @Test
  @DisplayName("generated traffic with --pipeline-delay 2s: every tenant's calls at least 2 s late, the quota's wait on top")
  void shouldSimulateGeneratedTrafficWithThePipelinesDelay() throws Exception {
    Path current = Files.writeString(dir.resolve("current.yml"), config("10/s"));
    Path json = dir.resolve("report.json");
    Ran ran = sluice("simulate", "--config", current.toString(), "--generate", "rate=100,tenants=10,span=PT10S",
        "--pipeline-delay", "2s", "--json", json.toString());
    assertEquals(0, ran.exit(), ran.err());
    assertTrue(ran.out().startsWith("1000 lines read in"), ran.out());
    JsonNode tenants = Json.mapper().readTree(Files.readString(json)).path("runs").path(0).path("tenants");
    assertEquals(10, tenants.size(), tenants.toString());
    long calls = 0;
    for (JsonNode t : tenants) {
      calls += t.path("calls").asLong();
      // 2 s is 2,048's bucket's neighbour: 1,992 ms is the low end of the bucket holding 2,000.
      assertTrue(t.path("latenessMillis").path("p50").asLong() >= 1992, t.toString());
    }
    assertEquals(1000, calls);
    // t0000 sends about 32/s against its 10/s: its last calls wait for the quota, well past 2 s.
    assertTrue(tenants.path("t0000").path("latenessMillis").path("max").asLong() > 5000, tenants.toString());
  }

  @Test
  @DisplayName("one source only: --events with --generate, or --from-topic without --from, is refused")
  void shouldTakeExactlyOneSource() throws Exception {
    Path current = Files.writeString(dir.resolve("current.yml"), config("10/s"));
    Ran both = sluice("simulate", "--config", current.toString(), "--events", events().toString(),
        "--generate", "rate=10,tenants=1,span=PT1S");
    assertEquals(Sluice.BAD_INPUT, both.exit());
    assertTrue(both.err().contains("one of --events FILE, --from-topic and --generate SPEC"), both.err());
    Ran noFrom = sluice("simulate", "--config", current.toString(), "--from-topic");
    assertEquals(Sluice.BAD_INPUT, noFrom.exit());
    assertTrue(noFrom.err().contains("--from-topic needs --from"), noFrom.err());
    Ran negative = sluice("simulate", "--config", current.toString(), "--events", events().toString(),
        "--pipeline-delay", "-PT1S");
    assertEquals(Sluice.BAD_INPUT, negative.exit());
  }
}
