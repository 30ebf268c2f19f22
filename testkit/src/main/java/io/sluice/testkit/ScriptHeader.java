package io.sluice.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The calling convention a Lua script's header comment states (its opening {@code --[[ ... ]]}
 * comment, or run of {@code --} lines), read back so that a test can hold the script's Java codec
 * to it: the {@code KEYS[i]} and {@code ARGV[i] name} lines at the start of a line, and the
 * {@code [i] name} lines of its "Returns" paragraphs, each under the mode it was written for.
 *
 * <p>A mode starts at a line {@code mode <name>...} (arguments) or {@code Returns, mode <name>,...}
 * (answers); lines before the first one belong to every mode, the mode {@code ""}. Only a
 * position that is a plain number is kept by number ({@link #argv}); one written as an expression
 * ({@code ARGV[11 + 5n]}) is kept by its text ({@link #argvAt}).
 */
public final class ScriptHeader {
  private static final Pattern SLOT = Pattern.compile("^(KEYS|ARGV)\\[([^\\]]+)\\]\\s+(\\S+)(.*)$");
  private static final Pattern ANSWER = Pattern.compile("^\\s+\\[(\\d+)\\]\\s+(\\w+)\\s.*$");
  private static final Pattern MODE = Pattern.compile("^(?:Returns, )?mode (\\w+)\\b.*$");

  /** One line of the header: which table, under which mode, at which position, its name and the rest. */
  public record Line(String table, String mode, String position, String name, String text) {}

  private final List<Line> lines;
  private final String prose;

  private ScriptHeader(List<Line> lines, String prose) {
    this.lines = List.copyOf(lines);
    this.prose = prose;
  }

  /**
   * The header of {@code script}: its opening {@code --[[ ... ]]} comment, or its opening run of
   * {@code --} lines (each without its {@code --} and one space).
   */
  public static ScriptHeader of(String script) {
    String header;
    if (script.startsWith("--[[") && script.indexOf("]]") > 0) {
      header = script.substring(0, script.indexOf("]]"));
    } else if (script.startsWith("--")) {
      StringBuilder comment = new StringBuilder();
      for (String line : script.split("\n")) {
        if (!line.startsWith("--")) {
          break;
        }
        comment.append(line.substring(line.startsWith("-- ") ? 3 : 2)).append('\n');
      }
      header = comment.toString();
    } else {
      throw new IllegalArgumentException("the script does not open with a header comment");
    }
    List<Line> lines = new ArrayList<>();
    String mode = "";
    boolean open = false;
    for (String line : header.split("\n")) {
      Matcher m = MODE.matcher(line);
      if (m.matches()) {
        mode = m.group(1);
        open = false;
        continue;
      }
      Matcher slot = SLOT.matcher(line);
      if (slot.matches()) {
        lines.add(new Line(slot.group(1), mode, slot.group(2).trim(), slot.group(3), slot.group(4).trim()));
        open = true;
        continue;
      }
      Matcher answer = ANSWER.matcher(line);
      if (answer.matches()) {
        lines.add(new Line("reply", mode, answer.group(1), answer.group(2), line.trim()));
        open = true;
      } else if (open && line.startsWith(" ")) {
        // A continuation of the line above: its text goes on.
        Line last = lines.remove(lines.size() - 1);
        lines.add(new Line(last.table(), last.mode(), last.position(), last.name(),
            last.text() + " " + line.trim()));
      } else {
        open = false;
      }
    }
    return new ScriptHeader(lines, flat(header));
  }

  /**
   * Whether the header writes {@code phrase}, spaces and line breaks aside: for a convention
   * stated in prose ({@code put: ARGV[2] field, ARGV[3] json}) rather than in a table.
   */
  public boolean writes(String phrase) {
    return prose.contains(flat(phrase));
  }

  /** {@code text} with every run of spaces and line breaks one space. */
  private static String flat(String text) {
    return text.replaceAll("\\s+", " ").trim();
  }

  /** {@code ARGV} names by position (1-based) for {@code mode}: the common ones, then the mode's own over them. */
  public Map<Integer, String> argv(String mode) {
    return numbered("ARGV", mode);
  }

  /** The number of plain-numbered {@code KEYS} lines for {@code mode} (common and its own). */
  public int keyCount(String mode) {
    return numbered("KEYS", mode).size();
  }

  /** The answers' names by position (1-based) in {@code mode}'s "Returns" paragraph. */
  public Map<Integer, String> reply(String mode) {
    return numbered("reply", mode);
  }

  /** The {@code ARGV} line whose position is written as {@code position} (e.g. {@code "11 + 5n"}). */
  public Line argvAt(String position) {
    return at("ARGV", position);
  }

  /** The first {@code table} ({@code KEYS} or {@code ARGV}) line whose position is written as {@code position}. */
  public Line at(String table, String position) {
    return lines.stream().filter(l -> l.table().equals(table) && l.position().equals(position))
        .findFirst()
        .orElseThrow(() -> new AssertionError("the header has no " + table + "[" + position + "]"));
  }

  /**
   * A codec's names by position, as the header writes them: constant {@code i} (0-based) of
   * {@code names} at position {@code from + i}, lower-cased ({@code HORIZON_US} is
   * {@code horizon_us}).
   */
  public static Map<Integer, String> positions(int from, Enum<?>... names) {
    Map<Integer, String> byPosition = new LinkedHashMap<>();
    for (int i = 0; i < names.length; i++) {
      byPosition.put(from + i, names[i].name().toLowerCase(Locale.ROOT));
    }
    return byPosition;
  }

  private Map<Integer, String> numbered(String table, String mode) {
    Map<Integer, String> byPosition = new LinkedHashMap<>();
    for (Line l : lines) {
      if (l.table().equals(table) && (l.mode().isEmpty() || l.mode().equals(mode))
          && l.position().matches("\\d+")) {
        byPosition.put(Integer.parseInt(l.position()), l.name());
      }
    }
    return byPosition;
  }
}
