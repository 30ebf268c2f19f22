package io.sluice.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Binds a provider's {@code limits:} to {@link ProviderLimit}s, reporting what the schema cannot
 * see (a limit naming two kinds, a {@code per} on a rate, two rates) as {@link Problem}s that name
 * the field, e.g. {@code providers.openai.limits[1].per}.
 *
 * <p>The rules: a provider gives {@code rate} or {@code limits}, not both ({@code rate: R} means
 * {@code limits: [{rate: R}]}, and two places for one number would leave a reader guessing which
 * wins); {@code limits} holds exactly one rate (the leak that spaces calls) and at most one
 * concurrency; calls and cost limits need {@code per}.
 */
final class ProviderLimitsBinder {
  private static final List<String> KINDS = List.of("rate", "calls", "cost", "concurrency");
  private static final Pattern PER = Pattern.compile("^(\\d+)(ms|s|m|h|d)$");

  private final List<Problem> problems;

  ProviderLimitsBinder(List<Problem> problems) {
    this.problems = problems;
  }

  /**
   * The provider's limits as written, or an empty list when it has none of its own (then
   * {@code rate} alone applies) or when they are wrong (then problems say why).
   */
  List<ProviderLimit> bind(JsonNode provider, String path) {
    boolean hasRate = provider.has("rate");
    boolean hasLimits = provider.has("limits");
    if (!hasRate && !hasLimits) {
      problems.add(new Problem(Problem.join(path, "rate"),
          "is required: give the provider a rate like \"50/s\", or limits"));
      return List.of();
    }
    if (hasRate && hasLimits) {
      problems.add(new Problem(Problem.join(path, "limits"), "cannot be given together with "
          + "rate: rate: R means limits: [{rate: R}], so put the rate in limits"));
      return List.of();
    }
    if (!hasLimits) {
      return List.of();
    }
    String listPath = Problem.join(path, "limits");
    List<ProviderLimit> limits = new ArrayList<>();
    int problemsBefore = problems.size();
    JsonNode items = provider.get("limits");
    for (int i = 0; i < items.size(); i++) {
      ProviderLimit limit = limit(items.get(i), Problem.index(listPath, i));
      if (limit != null) {
        limits.add(limit);
      }
    }
    if (problems.size() > problemsBefore) {
      return List.of();
    }
    count(limits, ProviderLimit.Kind.RATE, listPath, true);
    count(limits, ProviderLimit.Kind.CONCURRENCY, listPath, false);
    return problems.size() > problemsBefore ? List.of() : limits;
  }

  private void count(List<ProviderLimit> limits, ProviderLimit.Kind kind, String path,
      boolean required) {
    long n = limits.stream().filter(l -> l.kind() == kind).count();
    String name = kind.name().toLowerCase(Locale.ROOT);
    if (required && n == 0) {
      problems.add(new Problem(path, "needs one {" + name + ": ...} limit: the steady rate that "
          + "spaces the calls (e.g. {rate: 10/s})"));
    } else if (n > 1) {
      problems.add(new Problem(path, "has " + n + " " + name + " limits; give at most one"));
    }
  }

  private ProviderLimit limit(JsonNode node, String path) {
    List<String> kinds = KINDS.stream().filter(node::has).toList();
    if (kinds.size() != 1) {
      problems.add(new Problem(path, "names " + (kinds.isEmpty() ? "no kind" : kinds)
          + ": a limit is exactly one of rate, calls, cost or concurrency"));
      return null;
    }
    String kind = kinds.get(0);
    boolean windowed = kind.equals("calls") || kind.equals("cost");
    for (String field : List.of("per", "window", "margin")) {
      if (!windowed && node.has(field)) {
        problems.add(new Problem(Problem.join(path, field), "applies only to calls and cost "
            + "limits, not to " + kind));
        return null;
      }
    }
    switch (kind) {
      case "rate": {
        try {
          return ProviderLimit.rate(Rate.parse(node.get("rate").asText()).perSecond());
        } catch (IllegalArgumentException e) {
          problems.add(new Problem(Problem.join(path, "rate"), "expected a rate above zero like "
              + "\"50/s\", got " + ConfigSchema.quoted(node.get("rate").asText())));
          return null;
        }
      }
      case "concurrency":
        return ProviderLimit.concurrency(node.get("concurrency").intValue());
      default:
        break;
    }
    if (!node.has("per")) {
      problems.add(new Problem(Problem.join(path, "per"), "is required for a " + kind
          + " limit: the window, like \"1m\", \"1h\" or \"1d\""));
      return null;
    }
    Duration per = per(node.get("per").asText(), Problem.join(path, "per"));
    Duration margin = null;
    if (node.has("margin")) {
      try {
        margin = Durations.parse(node.get("margin").asText());
      } catch (ArithmeticException | IllegalArgumentException e) {
        problems.add(new Problem(Problem.join(path, "margin"), "expected a duration like \"20ms\","
            + " got " + ConfigSchema.quoted(node.get("margin").asText())));
        return null;
      }
    }
    if (per == null) {
      return null;
    }
    ProviderLimit.Window window = node.has("window")
        ? ProviderLimit.Window.valueOf(node.get("window").asText().toUpperCase(Locale.ROOT))
        : ProviderLimit.Window.SLIDING;
    return new ProviderLimit(kind.equals("calls") ? ProviderLimit.Kind.CALLS
        : ProviderLimit.Kind.COST, node.get(kind).intValue(), per, window, margin);
  }

  private Duration per(String text, String path) {
    Matcher m = PER.matcher(text);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        Duration per = switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
        if (!per.isZero()) {
          return per;
        }
      }
    } catch (ArithmeticException | NumberFormatException e) {
      // reported below
    }
    problems.add(new Problem(path, "expected a window above zero like \"1s\", \"1m\", \"1h\" or "
        + "\"1d\", got " + ConfigSchema.quoted(text)));
    return null;
  }
}
