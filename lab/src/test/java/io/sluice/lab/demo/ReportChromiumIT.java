package io.sluice.lab.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's HTML report, opened in a real browser (headless Chromium): its three charts are in
 * the rendered DOM with their lines, and the page renders to a non-trivial image. The report is
 * written from a small synthetic run (twelve seconds, a burst at 3 s), so the test is fast and
 * its input known; the demo itself is {@code DemoIT}'s business.
 */
class ReportChromiumIT {
  private static final Pattern POLYLINE = Pattern.compile("<polyline\\b[^>]*>");
  private static final Pattern SERIES = Pattern.compile("data-series=\"([^\"]*)\"");

  @TempDir
  static Path dir;

  private static Path html;
  private static String dom;

  @BeforeAll
  static void renderTheReport() throws Exception {
    HeadlessChromium.requireInstalled();
    html = dir.resolve("report.html");
    Reports.write(syntheticReport(), html, null,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    dom = new HeadlessChromium(dir).dumpDom(html);
  }

  @Test
  @DisplayName("the rendered DOM has the three charts, each with at least one line")
  void threeChartsWithLines() {
    for (String id : List.of("calls-per-tier", "provider-429", "backlog")) {
      String svg = svg(id);
      assertTrue(POLYLINE.matcher(svg).find(), "no polyline in chart " + id + ":\n" + svg);
    }
  }

  @Test
  @DisplayName("the calls chart has a line per tier and the dashed leak-rate reference")
  void callsChartHasTiersAndReference() {
    String svg = svg("calls-per-tier");
    List<String> series = new ArrayList<>();
    Matcher line = POLYLINE.matcher(svg);
    while (line.find()) {
      Matcher name = SERIES.matcher(line.group());
      if (name.find()) {
        series.add(name.group(1));
      }
    }
    assertTrue(series.containsAll(List.of("enterprise", "pro", "free")), "series: " + series);
    assertTrue(Pattern.compile("<line\\b[^>]*class=\"reference\"").matcher(svg).find(),
        "no dashed reference line in:\n" + svg);
  }

  @Test
  @DisplayName("the page renders to a PNG larger than 10 KB")
  void rendersToAnImage() throws Exception {
    Path png = Path.of("target", "sluice-demo-report.png");
    Files.createDirectories(png.getParent());

    new HeadlessChromium(dir).screenshot(html, png, 900, 1300);

    byte[] bytes = Files.readAllBytes(png);
    assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'},
        Arrays.copyOf(bytes, 8), "not a PNG: " + png.toAbsolutePath());
    assertTrue(bytes.length > 10 * 1024, png.toAbsolutePath() + " is only " + bytes.length
        + " bytes: a blank page, not the report");
  }

  @Test
  @DisplayName("the verdict in the rendered page is the report's own")
  void verdictIsTheReports() {
    assertTrue(dom.contains("id=\"verdict\""), "no verdict in the DOM");
    assertTrue(dom.contains("<b>0 lost</b>"), "verdict does not say 0 lost");
  }

  /** The {@code <svg>} element with that id, from the rendered DOM. */
  private static String svg(String id) {
    int at = dom.indexOf("id=\"" + id + "\"");
    assertTrue(at >= 0, "no element with id " + id + " in the rendered DOM");
    int start = dom.lastIndexOf("<svg", at);
    int end = dom.indexOf("</svg>", at);
    assertTrue(start >= 0 && end > at && dom.indexOf('>', start) > at,
        "the element with id " + id + " is not an svg");
    return dom.substring(start, end + "</svg>".length());
  }

  /** Twelve seconds at 50 calls/s shared 8:4:1; a burst at 3 s builds a backlog that drains. */
  private static DemoReport syntheticReport() {
    List<DemoReport.Second> timeline = new ArrayList<>();
    long backlog = 0;
    for (int s = 0; s < 12; s++) {
      Map<String, Long> calls = new LinkedHashMap<>();
      calls.put("enterprise", 31L);
      calls.put("pro", 15L);
      calls.put("free", s % 2 == 0 ? 4L : 3L);
      backlog += (s == 3 ? 500 : 45) - 50; // arrivals minus the leak
      backlog = Math.max(0, backlog);
      timeline.add(new DemoReport.Second(s, calls, s == 4 ? 1 : 0, backlog,
          Math.min(backlog, 200)));
    }
    Map<String, Long> callsByTier = Map.of("enterprise", 372L, "pro", 180L, "free", 42L);
    return new DemoReport(12, 14.5, 1105, 1100, 5, 0, List.of(), callsByTier, callsByTier,
        Map.of("enterprise", 8.0, "pro", 4.0, "free", 1.0), 50, 49.9, 11.0, 51, 1,
        Map.of("invalid", 3L, "expired", 1L, "unknown_provider", 1L), 1105, 40, timeline);
  }
}
