package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchReportTest {
  @TempDir
  Path dir;

  private static BenchReport report() {
    ScenarioResult r = new ScenarioResult("demo", "a scenario")
        .row("first case", "events/s", 12_345.678, "count", 7L)
        .row("second | case", "count", 8L, "ratio", 0.7123)
        .target("ratio", "≥ 0.70", "0.71", true)
        .note("A sentence.")
        .plot("p.svg", "<svg/>", "a plot");
    return new BenchReport(Map.of("commit", "abc"), List.of(r));
  }

  @Test
  @DisplayName("figures read as a person writes them: thousands separated, 3 significant digits")
  void cells() {
    assertEquals("12,346", BenchReport.cell(12_345.678));
    assertEquals("123.5", BenchReport.cell(123.45));
    assertEquals("1.50", BenchReport.cell(1.5));
    assertEquals("0.0123", BenchReport.cell(0.012345));
    assertEquals("n/a", BenchReport.cell(Double.NaN));
    assertEquals("1,000,000", BenchReport.cell(1_000_000L));
    assertEquals("a \\| b", BenchReport.cell("a | b"));
  }

  @Test
  @DisplayName("the table has a column per figure, in first-seen order, blank where a row has none")
  void table() {
    String md = report().markdown("");
    assertTrue(md.contains("| case | events/s | count | ratio |\n|---|---|---|---|\n"), md);
    assertTrue(md.contains("| first case | 12,346 | 7 |  |\n"), md);
    assertTrue(md.contains("| second \\| case |  | 8 | 0.712 |\n"), md);
    assertTrue(md.contains("| demo | ratio | ≥ 0.70 | 0.71 | met |"), md);
    assertTrue(md.contains("- A sentence.\n"), md);
    assertTrue(md.contains("![a plot](p.svg)"), md);
  }

  @Test
  @DisplayName("bench.json holds every row with raw numbers, NaN as null")
  void json() throws Exception {
    BenchReport r = new BenchReport(Map.of(), List.of(new ScenarioResult("s", "t")
        .row("c", "x", Double.NaN, "y", 2.5)));
    JsonNode row = new ObjectMapper().readTree(r.json()).get("scenarios").get("s").get("rows").get(0);
    assertEquals("c", row.get("case").asText());
    assertTrue(row.get("x").isNull());
    assertEquals(2.5, row.get("y").asDouble());
  }

  @Test
  @DisplayName("regenerating appends the section to a document without markers, then replaces it")
  void regenerate() throws Exception {
    Path doc = dir.resolve("B.md");
    Files.writeString(doc, "# Title\n");
    report().regenerate(doc);
    String once = Files.readString(doc);
    assertTrue(once.startsWith("# Title\n" + BenchReport.BEGIN + "\n"), once);
    assertTrue(Files.exists(dir.resolve("bench/p.svg")));
    Files.writeString(doc, once + "\nAfter.\n");
    report().regenerate(doc);
    String twice = Files.readString(doc);
    assertEquals(once + "\nAfter.\n", twice);
    assertFalse(twice.indexOf(BenchReport.BEGIN) != twice.lastIndexOf(BenchReport.BEGIN));
  }
}
