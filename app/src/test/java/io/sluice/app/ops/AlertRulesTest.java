package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The alert rules in {@code deploy/prometheus} are usable by whoever is paged: each alert has a
 * severity, a summary, a description and a {@code runbook_url} that names a section of
 * {@code docs/alerts.md} which exists, and each is exercised by the promtool unit tests beside
 * it (which CI runs with promtool; this test holds the shape where promtool is not installed).
 */
class AlertRulesTest {
  private static final Pattern RUNBOOK = Pattern.compile("docs/alerts\\.md#([a-z0-9-]+)");
  private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");

  private static List<JsonNode> alerts;
  private static Set<String> anchors;
  private static Set<String> tested;

  @BeforeAll
  static void read() throws IOException {
    Path root = DeployConfigTest.repositoryRoot();
    Path rules = root.resolve("deploy/prometheus/sluice-alerts.yaml");
    alerts = new ArrayList<>();
    for (JsonNode group : new YAMLMapper().readTree(rules.toFile()).path("groups")) {
      group.path("rules").forEach(alerts::add);
    }
    anchors = new TreeSet<>();
    for (String line : Files.readAllLines(root.resolve("docs/alerts.md"))) {
      if (line.startsWith("#")) {
        anchors.add(githubAnchor(line.replaceFirst("^#+\\s*", "")));
      }
    }
    tested = new TreeSet<>();
    JsonNode tests = new YAMLMapper().readTree(
        root.resolve("deploy/prometheus/sluice-alerts.test.yaml").toFile());
    for (JsonNode test : tests.path("tests")) {
      test.path("alert_rule_test").forEach(t -> tested.add(t.path("alertname").asText()));
    }
  }

  /** The anchor GitHub gives a heading: lower case, spaces to '-', punctuation dropped. */
  static String githubAnchor(String heading) {
    return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "")
        .replace(' ', '-');
  }

  @Test
  void shouldGiveEveryAlertASeveritySummaryDescriptionAndRunbook() {
    assertTrue(alerts.size() >= 18, "found " + alerts.size());
    List<String> faults = new ArrayList<>();
    for (JsonNode a : alerts) {
      String name = a.path("alert").asText();
      if (!SEVERITIES.contains(a.path("labels").path("severity").asText())) {
        faults.add(name + ": severity");
      }
      for (String field : List.of("summary", "description", "runbook_url")) {
        if (a.path("annotations").path(field).asText().isBlank()) {
          faults.add(name + ": " + field);
        }
      }
    }
    assertEquals(List.of(), faults);
  }

  @Test
  void shouldPointEveryRunbookAtItsOwnSectionOfTheAlertsPage() {
    List<String> faults = new ArrayList<>();
    for (JsonNode a : alerts) {
      String name = a.path("alert").asText();
      Matcher m = RUNBOOK.matcher(a.path("annotations").path("runbook_url").asText());
      if (!m.matches()) {
        faults.add(name + ": runbook_url is not docs/alerts.md#...");
      } else if (!m.group(1).equals(githubAnchor(name)) || !anchors.contains(m.group(1))) {
        faults.add(name + ": no section '" + m.group(1) + "' named after it in docs/alerts.md");
      }
    }
    assertEquals(List.of(), faults, "sections: " + anchors);
  }

  @Test
  void shouldExerciseEveryAlertInThePromtoolTests() {
    List<String> untested = new ArrayList<>();
    for (JsonNode a : alerts) {
      if (!tested.contains(a.path("alert").asText())) {
        untested.add(a.path("alert").asText());
      }
    }
    assertEquals(List.of(), untested, "alerts no promtool test evaluates");
  }
}
