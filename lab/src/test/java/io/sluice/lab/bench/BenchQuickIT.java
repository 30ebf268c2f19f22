package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code sluice bench --quick}, in this JVM, on its own embedded broker and redis-server, so the
 * bench cannot rot: every scenario runs and reports. Nothing here looks at a speed: only that
 * each figure exists and that the counts and invariants are sane (events counted, nothing
 * released early, every row in the Markdown, well-formed JSON and SVG).
 */
@Execution(ExecutionMode.CONCURRENT)
class BenchQuickIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  private static CliRun run;
  private static JsonNode scenarios;
  private static String markdown;
  private static Path document;

  @BeforeAll
  static void runTheBench() throws Exception {
    document = dir.resolve("BENCHMARKS.md");
    Files.writeString(document, "# Benchmarks\n\nProse kept.\n\n" + BenchReport.BEGIN
        + "\nold figures\n" + BenchReport.END + "\n\nMore prose kept.\n");
    run = CliRun.of("bench", "--quick", "--out", dir.resolve("out").toString(),
        "--markdown", document.toString());
    assertEquals(0, run.exitCode(), "the bench failed:\n" + run.output());
    scenarios = JSON.readTree(Files.readString(dir.resolve("out/bench.json"))).get("scenarios");
    markdown = Files.readString(dir.resolve("out/bench.md"));
  }

  @Test
  @DisplayName("every scenario of issue 10 ran and has rows, none failed")
  void everyScenario() {
    List<String> names = new ArrayList<>();
    scenarios.fieldNames().forEachRemaining(names::add);
    assertEquals(BenchRun.names(), names);
    for (String name : names) {
      JsonNode rows = scenarios.get(name).get("rows");
      assertTrue(rows.size() > 0, name + " has no rows");
      for (JsonNode row : rows) {
        assertFalse(row.get("case").asText().equals("failed"), name + " failed: " + row);
      }
    }
  }

  @Test
  @DisplayName("every row of bench.json is a row of the Markdown table")
  void markdownHasEveryRow() {
    scenarios.fields().forEachRemaining(s -> {
      assertTrue(markdown.contains("### " + s.getKey() + ":"), "no section for " + s.getKey());
      for (JsonNode row : s.getValue().get("rows")) {
        assertTrue(markdown.contains("| " + BenchReport.cell(row.get("case").asText()) + " |"),
            "no Markdown row for " + row.get("case"));
      }
      assertTrue(s.getValue().get("targets") != null);
    });
  }

  @Test
  @DisplayName("--markdown replaces only the generated section of the document")
  void regeneratesTheSection() throws Exception {
    String doc = Files.readString(document);
    assertTrue(doc.startsWith("# Benchmarks\n\nProse kept.\n\n" + BenchReport.BEGIN), doc);
    assertTrue(doc.endsWith(BenchReport.END + "\n\nMore prose kept.\n"), doc);
    assertFalse(doc.contains("old figures"));
    assertTrue(doc.contains("### latency:"));
    assertTrue(Files.exists(dir.resolve("bench/scaling-tenants.svg")));
  }

  @Test
  @DisplayName("the plots are well-formed SVG with a line per series")
  void plots() throws Exception {
    for (String file : List.of("scaling-tenants.svg", "scaling-memory.svg")) {
      Path svg = dir.resolve("out").resolve(file);
      var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
      assertEquals("svg", doc.getDocumentElement().getNodeName());
      assertTrue(doc.getElementsByTagName("polyline").getLength() > 0, file + " has no line");
    }
  }

  @Test
  @DisplayName("the dispatch scenario called the receiver on both sides, and held the rate")
  void dispatch() {
    JsonNode rows = scenarios.get("dispatch").get("rows");
    // Bare and dispatcher at 1 and 10 destinations, then 10 destinations each at 5/s.
    assertEquals(5, rows.size());
    for (JsonNode row : rows) {
      assertTrue(row.get("calls measured").asLong() > 0, row.toString());
    }
    assertTrue(rows.get(1).get("ratio to bare").asDouble() > 0, rows.get(1).toString());
    JsonNode limited = rows.get(4);
    assertTrue(limited.get("most at one destination in 1 s").asLong()
        <= limited.get("allowed at one destination in 1 s").asLong(), limited.toString());
  }

  @Test
  @DisplayName("the gate scenario decided events in every case and reports a ratio for each")
  void gate() {
    JsonNode rows = scenarios.get("gate").get("rows");
    // Pass-through, the three traffic shapes of issue 10, two quota rules per event, and a
    // provider with a dedupWindow (issue 35: its cost measured, not held to the ratio).
    assertEquals(6, rows.size());
    for (JsonNode row : rows) {
      assertTrue(row.get("events/s (median)").asDouble() > 0, row.toString());
      assertTrue(row.hasNonNull("ratio to pass-through (median)"), row.toString());
    }
    // No tenant comes near a quota of a million within quota; the others' shares are fractions.
    assertEquals(0, rows.get(1).get("share over quota").asDouble());
    for (JsonNode row : rows) {
      double share = row.get("share over quota").asDouble();
      assertTrue(share >= 0 && share <= 1, row.toString());
    }
  }

  @Test
  @DisplayName("the limiter scenario ran three limiters and the bare round trip at 1 and 8 threads, "
      + "over many keys, new keys and one")
  void limiter() {
    assertEquals(24, scenarios.get("limiter").get("rows").size());
    for (JsonNode row : scenarios.get("limiter").get("rows")) {
      assertTrue(row.get("decisions/s (median)").asDouble() > 0, row.toString());
      if (row.get("case").asText().startsWith("Sluice token_bucket.lua")) {
        // One script call per decision, none of them the leased path's renewals of the run before.
        assertEquals(1.0, row.get("Redis requests per decision").asDouble(), 1e-3, row.toString());
      }
    }
  }

  @Test
  @DisplayName("Redis calls were counted for admitted events")
  void calls() {
    for (JsonNode row : scenarios.get("calls").get("rows")) {
      assertTrue(row.get("events admitted").asLong() > 0, row.toString());
      assertTrue(row.get("Redis calls").asLong() > 0, row.toString());
    }
  }

  @Test
  @DisplayName("the leak and fairness runs counted calls at the provider")
  void provider() {
    for (JsonNode row : scenarios.get("leak").get("rows")) {
      assertTrue(row.get("calls measured").asLong() > 10, row.toString());
      assertTrue(row.get("max calls in any 1 s").asLong() > 0, row.toString());
    }
    JsonNode tiers = scenarios.get("fairness").get("rows");
    assertEquals(3, tiers.size());
    for (JsonNode row : tiers) {
      assertTrue(row.get("calls").asLong() > 0, row.toString());
    }
  }

  @Test
  @DisplayName("every over-quota event was decided at least once, and reservations decide once")
  void amplification() {
    JsonNode rows = scenarios.get("amplification").get("rows");
    assertEquals(2, rows.size());
    for (JsonNode row : rows) {
      assertTrue(row.get("events").asLong() > 0);
      assertTrue(row.get("decisions").asLong() >= row.get("events").asLong(), row.toString());
    }
    assertEquals(0, rows.get(0).get("queued (ticket)").asLong(), rows.get(0).toString());
    assertTrue(rows.get(1).get("queued (ticket)").asLong() > 0, rows.get(1).toString());
  }

  @Test
  @DisplayName("the relay released records, none before its not-before")
  void relay() {
    JsonNode measured = scenarios.get("relay").get("rows").get(0);
    assertTrue(measured.get("records released").asLong() > 0, measured.toString());
    assertTrue(measured.get("lateness min (ms)").asDouble() >= 0, measured.toString());
  }

  @Test
  @DisplayName("every latency event reached the provider")
  void latency() {
    JsonNode row = scenarios.get("latency").get("rows").get(0);
    assertTrue(row.get("events").asLong() > 0);
    assertTrue(row.get("p50 (ms)").asDouble() > 0, "a negative or zero latency: " + row);
  }
}
