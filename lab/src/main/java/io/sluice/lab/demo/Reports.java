package io.sluice.lab.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Prints the demo report and writes its files. */
public final class Reports {
  private Reports() {}

  /**
   * @param html where to write the HTML report
   * @param json where to write the JSON figures, or null
   */
  public static void write(DemoReport report, Path html, Path json, PrintStream out)
      throws IOException {
    out.print(ReportWriter.text(report));
    Files.writeString(html, ReportWriter.html(report), StandardCharsets.UTF_8);
    out.println("HTML report with plots: " + html.toAbsolutePath());
    if (json != null) {
      Files.writeString(json, ReportWriter.json(report), StandardCharsets.UTF_8);
      out.println("JSON figures: " + json.toAbsolutePath());
    }
  }
}
