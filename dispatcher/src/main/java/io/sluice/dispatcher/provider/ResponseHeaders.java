package io.sluice.dispatcher.provider;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The response header fields Sluice reads from a provider's answer: {@code Retry-After} and the
 * rate-limit announcements ({@code RateLimit}, {@code RateLimit-Policy}, {@code X-RateLimit-*}).
 * Names are lower case (HTTP names are case-insensitive); a field sent on several lines keeps each
 * line, in order. Other fields are not kept: an answer is held only until it is judged, and a
 * provider's cookies or bodies of headers have no business in a dispatcher's memory.
 */
public record ResponseHeaders(Map<String, List<String>> fields) {
  public static final ResponseHeaders NONE = new ResponseHeaders(Map.of());

  public ResponseHeaders {
    TreeMap<String, List<String>> kept = new TreeMap<>();
    fields.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (isKept(lower) && values != null && !values.isEmpty()) {
        kept.computeIfAbsent(lower, n -> new ArrayList<>()).addAll(values);
      }
    });
    kept.replaceAll((name, values) -> List.copyOf(values));
    fields = Collections.unmodifiableMap(kept);
  }

  /** One value per name, for tests and single-line fields. */
  public static ResponseHeaders of(String... namesAndValues) {
    Map<String, List<String>> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      m.computeIfAbsent(namesAndValues[i], n -> new ArrayList<>()).add(namesAndValues[i + 1]);
    }
    return new ResponseHeaders(m);
  }

  /** Whether a (lower-case) field name is one Sluice reads. */
  public static boolean isKept(String lowerName) {
    return lowerName.equals("retry-after") || lowerName.equals("ratelimit")
        || lowerName.equals("ratelimit-policy") || lowerName.startsWith("x-ratelimit-");
  }

  /** The field's lines joined by ", " (RFC 9110 5.3), or null when absent. */
  public String combined(String lowerName) {
    List<String> values = fields.get(lowerName);
    return values == null ? null : String.join(", ", values);
  }

  /** The field's first line, or null when absent. */
  public String first(String lowerName) {
    List<String> values = fields.get(lowerName);
    return values == null ? null : values.get(0);
  }

  public boolean isEmpty() {
    return fields.isEmpty();
  }
}
