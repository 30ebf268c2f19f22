package io.sluice.app.ops;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression reads, for checking dashboards and alert rules against
 * {@code /metrics}. Not a PromQL parser: a scanner that knows what else an identifier can be.
 *
 * <p>Left out: anything in quotes, label matchers ({@code {...}}), ranges and subqueries
 * ({@code [...]}), the label lists of {@code by}, {@code without}, {@code on}, {@code ignoring},
 * {@code group_left} and {@code group_right}, function names (an identifier before {@code (}),
 * aggregation operators and keywords, numbers and durations, and Grafana variables
 * ({@code $provider}, {@code $__rate_interval}). What remains are the selectors' metric names,
 * as written: {@code x_total}, {@code x_count} and {@code x{quantile="0.99"}}'s {@code x} alike.
 */
final class PromQlNames {
  private static final Set<String> KEYWORDS = Set.of(
      "and", "or", "unless", "bool", "offset", "inf", "nan",
      "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
      "bottomk", "topk", "quantile", "limitk", "limit_ratio");
  private static final Set<String> LABEL_LIST_KEYWORDS = Set.of(
      "by", "without", "on", "ignoring", "group_left", "group_right");

  private PromQlNames() {}

  static Set<String> of(String expr) {
    Set<String> names = new TreeSet<>();
    int i = 0;
    while (i < expr.length()) {
      char c = expr.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipQuoted(expr, i);
      } else if (c == '{') {
        i = skipBracketed(expr, i, '{', '}');
      } else if (c == '[') {
        i = skipBracketed(expr, i, '[', ']');
      } else if (c == '$') {
        i = skipWord(expr, i + 1);
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < expr.length() && Character.isDigit(expr.charAt(i + 1)))) {
        i = skipWord(expr, i); // 0.8, 1e3, 5m, 1h30m
      } else if (c == '_' || c == ':' || Character.isLetter(c)) {
        int end = skipWord(expr, i);
        String word = expr.substring(i, end);
        int next = skipSpace(expr, end);
        String lower = word.toLowerCase(Locale.ROOT);
        if (LABEL_LIST_KEYWORDS.contains(lower)) {
          end = next < expr.length() && expr.charAt(next) == '(' ? skipBracketed(expr, next, '(', ')') : end;
        } else if (!KEYWORDS.contains(lower) && (next >= expr.length() || expr.charAt(next) != '(')) {
          names.add(word);
        }
        i = end;
      } else {
        i++;
      }
    }
    return names;
  }

  private static int skipWord(String s, int i) {
    while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_'
        || s.charAt(i) == ':' || s.charAt(i) == '.')) {
      i++;
    }
    return i;
  }

  private static int skipSpace(String s, int i) {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int skipQuoted(String s, int start) {
    char quote = s.charAt(start);
    for (int i = start + 1; i < s.length(); i++) {
      if (s.charAt(i) == '\\' && quote != '`') {
        i++;
      } else if (s.charAt(i) == quote) {
        return i + 1;
      }
    }
    throw new IllegalArgumentException("unterminated string in " + s);
  }

  private static int skipBracketed(String s, int start, char open, char close) {
    int depth = 0;
    for (int i = start; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = skipQuoted(s, i) - 1;
      } else if (c == open) {
        depth++;
      } else if (c == close && --depth == 0) {
        return i + 1;
      }
    }
    throw new IllegalArgumentException("unbalanced " + open + " in " + s);
  }
}
