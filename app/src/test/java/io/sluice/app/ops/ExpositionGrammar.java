package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.regex.Pattern;

/**
 * The line grammar of the Prometheus text format 0.0.4, written out again as regular expressions
 * independently of {@link PrometheusTextParser}, so a test can check "every line is valid" without
 * trusting the code under test to say so.
 */
final class ExpositionGrammar {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final String VALUE = "(?:NaN|[+-]Inf|[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)";

  static final Pattern HELP = Pattern.compile("# HELP " + NAME + " (?:[^\\\\\\n]|\\\\[\\\\n])*");
  static final Pattern TYPE = Pattern.compile("# TYPE " + NAME + " (?:counter|gauge|summary|histogram|untyped)");
  static final Pattern SAMPLE = Pattern.compile(
      NAME + "(?:\\{(?:" + LABEL + "(?:," + LABEL + ")*,?)?\\})? " + VALUE + "(?: -?\\d+)?");

  private ExpositionGrammar() {}

  /** Fails naming the first line that is not a HELP, TYPE or sample line, or a missing final line feed. */
  static void assertEveryLineValid(String text) {
    if (!text.isEmpty() && !text.endsWith("\n")) {
      fail("the exposition does not end with a line feed");
    }
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length - 1; i++) {
      String line = lines[i];
      if (!(HELP.matcher(line).matches() || TYPE.matcher(line).matches() || SAMPLE.matcher(line).matches())) {
        fail("line " + (i + 1) + " is not valid exposition format: " + line + "\nin:\n" + text);
      }
    }
  }
}
