package io.sluice.app.ops;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests that scrape
 * {@code /metrics} and want both "every line is valid" and the values.
 *
 * <p>Strict means it refuses what Prometheus would refuse or silently misread, each time with
 * an {@link IllegalArgumentException} that names the line:
 * <ul>
 *   <li>text that does not end in a line feed, a trailing blank or tab, an unknown escape;</li>
 *   <li>a second {@code # TYPE} or {@code # HELP} for a family, a {@code # TYPE} after the
 *       family's first sample, an unknown type;</li>
 *   <li>samples of one family that are not contiguous, the same series twice, a label twice;</li>
 *   <li>a summary sample without {@code quantile}, a histogram bucket without {@code le},
 *       a negative counter;</li>
 *   <li>a value that is not Go float syntax ({@code 1}, {@code -2.5e3}, {@code NaN},
 *       {@code +Inf}), a timestamp that is not an integer.</li>
 * </ul>
 * Sample names {@code f_count}, {@code f_sum} (and {@code f_bucket}) belong to a summary or
 * histogram family {@code f} declared before them; any sample without a declared family forms an
 * untyped family of its own name.
 */
public final class PrometheusTextParser {
  private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");
  private static final Pattern FLOAT = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");
  private static final Pattern TIMESTAMP = Pattern.compile("-?\\d+");

  private PrometheusTextParser() {}

  /** One sample line. {@code labels} are sorted by name. */
  public record Sample(String name, Map<String, String> labels, double value) {
    public Sample {
      labels = Map.copyOf(labels);
    }
  }

  /** One family: its name, type ({@code untyped} when no TYPE line), help (null without one). */
  public record Family(String name, String type, String help, List<Sample> samples) {
    public Family {
      samples = List.copyOf(samples);
    }
  }

  /** A parsed exposition, families in the order they appeared. */
  public record Exposition(List<Family> families) {
    public Exposition {
      families = List.copyOf(families);
    }

    public Optional<Family> family(String name) {
      return families.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    /** Every sample of that sample name, in any family. */
    public List<Sample> samples(String sampleName) {
      return families.stream().flatMap(f -> f.samples().stream())
          .filter(s -> s.name().equals(sampleName)).toList();
    }

    /** The value of the series with exactly these labels ({@code name, value, ...}). */
    public OptionalDouble value(String sampleName, String... labelPairs) {
      Map<String, String> wanted = new TreeMap<>();
      for (int i = 0; i + 1 < labelPairs.length; i += 2) {
        wanted.put(labelPairs[i], labelPairs[i + 1]);
      }
      return samples(sampleName).stream().filter(s -> s.labels().equals(wanted))
          .mapToDouble(Sample::value).findFirst();
    }
  }

  /** Parses a whole exposition; empty text is an empty exposition. */
  public static Exposition parse(String text) {
    return new Reading().read(text);
  }

  /** Parses a Go float: a decimal, {@code NaN}, {@code +Inf}, {@code -Inf} or {@code Inf}. */
  static double parseValue(String token) {
    switch (token) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        if (!FLOAT.matcher(token).matches()) {
          throw new IllegalArgumentException("value " + token + " is not a number");
        }
        return Double.parseDouble(token);
    }
  }

  /** The state of one parse. */
  private static final class Reading {
    private final Map<String, Building> families = new LinkedHashMap<>();
    private final Set<String> closed = new HashSet<>();
    private Building current;

    Exposition read(String text) {
      if (!text.isEmpty() && !text.endsWith("\n")) {
        throw new IllegalArgumentException("the exposition must end with a line feed");
      }
      String[] lines = text.split("\n", -1);
      for (int n = 0; n < lines.length - 1; n++) {
        try {
          line(lines[n]);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("line " + (n + 1) + ": " + e.getMessage() + ": " + lines[n], e);
        }
      }
      List<Family> result = new ArrayList<>();
      for (Building b : families.values()) {
        result.add(new Family(b.name, b.type, b.help, b.samples));
      }
      return new Exposition(result);
    }

    private void line(String line) {
      if (line.isEmpty()) {
        return;
      }
      if (line.endsWith(" ") || line.endsWith("\t")) {
        throw new IllegalArgumentException("trailing whitespace");
      }
      if (line.startsWith("#")) {
        comment(line);
      } else {
        sample(line);
      }
    }

    private void comment(String line) {
      String[] parts = line.substring(1).stripLeading().split("[ \t]+", 3);
      if (parts.length < 2 || !(parts[0].equals("HELP") || parts[0].equals("TYPE"))) {
        return; // an ordinary comment
      }
      String name = parts[1];
      if (!LabelText.METRIC_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(name + " is not a metric name");
      }
      Building family = enter(name);
      if (parts[0].equals("HELP")) {
        if (family.help != null) {
          throw new IllegalArgumentException("second HELP for " + name);
        }
        family.help = unescapeHelp(parts.length > 2 ? parts[2] : "");
      } else {
        if (family.typed) {
          throw new IllegalArgumentException("second TYPE for " + name);
        }
        if (!family.samples.isEmpty()) {
          throw new IllegalArgumentException("TYPE for " + name + " after its samples");
        }
        if (parts.length < 3 || !TYPES.contains(parts[2])) {
          throw new IllegalArgumentException("unknown type for " + name);
        }
        family.type = parts[2];
        family.typed = true;
      }
    }

    private void sample(String line) {
      int i = 0;
      while (i < line.length() && isNameChar(line.charAt(i), i == 0)) {
        i++;
      }
      String name = line.substring(0, i);
      if (name.isEmpty()) {
        throw new IllegalArgumentException("expected a metric name");
      }
      Map<String, String> labels = Map.of();
      if (i < line.length() && line.charAt(i) == '{') {
        LabelText.Parsed parsed = LabelText.parse(line, i);
        labels = parsed.labels();
        i = parsed.end();
      }
      String rest = line.substring(i);
      if (rest.isEmpty() || !(rest.charAt(0) == ' ' || rest.charAt(0) == '\t')) {
        throw new IllegalArgumentException("expected a blank and a value after " + name);
      }
      String[] tokens = rest.strip().split("[ \t]+");
      if (tokens.length > 2) {
        throw new IllegalArgumentException("expected a value and at most a timestamp");
      }
      double value = parseValue(tokens[0]);
      if (tokens.length == 2 && !TIMESTAMP.matcher(tokens[1]).matches()) {
        throw new IllegalArgumentException("timestamp " + tokens[1] + " is not an integer of milliseconds");
      }

      Building family = enter(familyOf(name));
      family.check(name, labels, value);
      family.samples.add(new Sample(name, labels, value));
    }

    /** The declared summary/histogram family a suffixed sample belongs to, else the name itself. */
    private String familyOf(String sampleName) {
      Building own = families.get(sampleName);
      if (own != null && own.typed) {
        return sampleName;
      }
      for (String suffix : List.of("_count", "_sum", "_bucket")) {
        if (sampleName.endsWith(suffix)) {
          Building parent = families.get(sampleName.substring(0, sampleName.length() - suffix.length()));
          if (parent != null && (parent.type.equals("histogram")
              || (parent.type.equals("summary") && !suffix.equals("_bucket")))) {
            return parent.name;
          }
        }
      }
      return sampleName;
    }

    /** Makes {@code name} the current family; re-entering one left earlier is an error. */
    private Building enter(String name) {
      if (current != null && current.name.equals(name)) {
        return current;
      }
      if (closed.contains(name)) {
        throw new IllegalArgumentException("lines of family " + name + " are not contiguous");
      }
      if (current != null) {
        closed.add(current.name);
      }
      current = families.computeIfAbsent(name, Building::new);
      return current;
    }

    private static boolean isNameChar(char c, boolean first) {
      return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || (!first && c >= '0' && c <= '9');
    }

    private static String unescapeHelp(String help) {
      StringBuilder out = new StringBuilder(help.length());
      for (int i = 0; i < help.length(); i++) {
        char c = help.charAt(i);
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (i + 1 >= help.length()) {
          throw new IllegalArgumentException("dangling backslash in HELP");
        }
        char e = help.charAt(++i);
        switch (e) {
          case '\\' -> out.append('\\');
          case 'n' -> out.append('\n');
          default -> throw new IllegalArgumentException("unknown escape \\" + e + " in HELP");
        }
      }
      return out.toString();
    }
  }

  /** A family while it is being read. */
  private static final class Building {
    final String name;
    String type = "untyped";
    boolean typed;
    String help;
    final List<Sample> samples = new ArrayList<>();
    final Set<String> series = new HashSet<>();

    Building(String name) {
      this.name = name;
    }

    void check(String sampleName, Map<String, String> labels, double value) {
      if (!series.add(sampleName + labels)) {
        throw new IllegalArgumentException("series " + sampleName + labels + " appears twice");
      }
      if (type.equals("summary") && sampleName.equals(name)) {
        requireNumericLabel(labels, "quantile");
      }
      if (type.equals("histogram") && sampleName.equals(name + "_bucket")) {
        requireNumericLabel(labels, "le");
      }
      if (type.equals("histogram") && sampleName.equals(name)) {
        throw new IllegalArgumentException("histogram " + name + " has a sample without suffix");
      }
      if (type.equals("counter") && value < 0) {
        throw new IllegalArgumentException("counter " + name + " is negative");
      }
    }

    private void requireNumericLabel(Map<String, String> labels, String label) {
      String v = labels.get(label);
      if (v == null) {
        throw new IllegalArgumentException(type + " sample of " + name + " has no " + label + " label");
      }
      parseValue(v);
    }
  }
}
