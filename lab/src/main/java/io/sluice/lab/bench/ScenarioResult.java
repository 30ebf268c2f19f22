package io.sluice.lab.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one scenario measured: its table (one row per case, columns in the order figures were
 * first given), the targets of issue 10 judged against the figures, a sentence per figure for
 * BENCHMARKS.md, and any plots. Filled in by the scenario as it runs, then only read.
 */
final class ScenarioResult {
  /** One row of the table: a case and its figures by column. */
  record Row(String label, Map<String, Object> figures) {}

  /** A target of the issue: met, missed, or (null) not judged by this run. */
  record Target(String what, String goal, String measured, Boolean met) {}

  /** A plot written next to the report. */
  record Plot(String file, String svg, String caption) {}

  private final String name;
  private final String title;
  private final List<Row> rows = new ArrayList<>();
  private final Set<String> columns = new LinkedHashSet<>();
  private final List<Target> targets = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<Plot> plots = new ArrayList<>();
  private double seconds;

  ScenarioResult(String name, String title) {
    this.name = name;
    this.title = title;
  }

  /** Adds a row: {@code figures} alternate column name and value (Number or String). */
  ScenarioResult row(String label, Object... figures) {
    if (figures.length % 2 != 0) {
      throw new IllegalArgumentException("figures come in name, value pairs");
    }
    Map<String, Object> f = new LinkedHashMap<>();
    for (int i = 0; i < figures.length; i += 2) {
      f.put((String) figures[i], figures[i + 1]);
      columns.add((String) figures[i]);
    }
    rows.add(new Row(label, f));
    return this;
  }

  ScenarioResult target(String what, String goal, String measured, Boolean met) {
    targets.add(new Target(what, goal, measured, met));
    return this;
  }

  /** One sentence explaining a figure, with its value. */
  ScenarioResult note(String sentence) {
    notes.add(sentence);
    return this;
  }

  ScenarioResult plot(String file, String svg, String caption) {
    plots.add(new Plot(file, svg, caption));
    return this;
  }

  void seconds(double seconds) {
    this.seconds = seconds;
  }

  String name() {
    return name;
  }

  String title() {
    return title;
  }

  List<Row> rows() {
    return List.copyOf(rows);
  }

  List<String> columns() {
    return List.copyOf(columns);
  }

  List<Target> targets() {
    return List.copyOf(targets);
  }

  List<String> notes() {
    return List.copyOf(notes);
  }

  List<Plot> plots() {
    return List.copyOf(plots);
  }

  double seconds() {
    return seconds;
  }
}
