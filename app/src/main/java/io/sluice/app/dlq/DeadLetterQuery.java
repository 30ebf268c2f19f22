package io.sluice.app.dlq;

import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which dead letters an operator asked for ({@code dlq list} and {@code dlq replay}): the filters
 * of the command line, checked. Every filter is operator input, typed in an incident, so each is
 * bounded and a bad one is refused with a sentence saying what was expected, never half-applied.
 *
 * <p>Bounds: {@code --reason} one of {@link Reason}'s codes; {@code --provider} and
 * {@code --tenant} the event contract's id shape ({@code [A-Za-z0-9._:-]{1,128}}); {@code --since}
 * a whole number of seconds, minutes, hours or days, at most {@link #MAX_SINCE}; {@code --limit}
 * 1 to {@link #MAX_LIMIT}.
 *
 * @param reason   the {@code sluice-reason} code to match; null for any
 * @param provider the event's provider to match; null for any
 * @param tenant   the event's tenant to match; null for any
 * @param since    how far back to read; null for the whole topic
 * @param limit    how many dead letters to show (list) or send (replay) at most
 */
public record DeadLetterQuery(String reason, String provider, String tenant, Duration since,
    int limit) {
  public static final int DEFAULT_LIMIT = 100;
  /** Enough for a bulk replay after an outage; a run is one Kafka transaction. */
  public static final int MAX_LIMIT = 10_000;
  /** Longer than any retention the topic contract gives the dead-letter topic. */
  public static final Duration MAX_SINCE = Duration.ofDays(400);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final Pattern SINCE = Pattern.compile("(\\d{1,7})(s|m|h|d)");

  public DeadLetterQuery {
    List<String> errors = new ArrayList<>();
    if (reason != null && Reason.fromCode(reason).isEmpty()) {
      errors.add("--reason: expected one of " + Arrays.stream(Reason.values()).map(Reason::code)
          .collect(Collectors.joining(", ")) + "; got \"" + shown(reason) + "\"");
    }
    checkId("--provider", provider, errors);
    checkId("--tenant", tenant, errors);
    if (since != null && (since.isNegative() || since.isZero() || since.compareTo(MAX_SINCE) > 0)) {
      errors.add("--since: expected a duration from 1s to " + MAX_SINCE.toDays() + "d");
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      errors.add("--limit: expected 1 to " + MAX_LIMIT + "; got " + limit);
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", errors));
    }
  }

  /**
   * The query from the command line's text.
   *
   * @param since like {@code 90s}, {@code 30m}, {@code 1h}, {@code 7d}; null for none
   * @throws IllegalArgumentException naming every bad filter
   */
  public static DeadLetterQuery parse(String reason, String provider, String tenant, String since,
      int limit) {
    List<String> errors = new ArrayList<>();
    Duration parsed = null;
    if (since != null) {
      parsed = parseSince(since).orElse(null);
      if (parsed == null) {
        errors.add("--since: expected a duration like 90s, 30m, 1h or 7d; got \"" + shown(since)
            + "\"");
      }
    }
    DeadLetterQuery query = null;
    try {
      query = new DeadLetterQuery(reason, provider, tenant, parsed, limit);
    } catch (IllegalArgumentException e) {
      errors.add(0, e.getMessage());
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(String.join("\n", errors));
    }
    return query;
  }

  /** The oldest record time to read from, or empty for the beginning of the topic. */
  public Optional<Instant> from(Instant now) {
    return since == null ? Optional.empty() : Optional.of(now.minus(since));
  }

  /** Whether a dead letter passes every filter (not the limit, which its reader counts). */
  public boolean matches(DeadLetterEntry e) {
    if (reason != null && (e.meta() == null || !reason.equals(e.meta().reason()))) {
      return false;
    }
    if (provider != null && !provider.equals(e.provider())) {
      return false;
    }
    return tenant == null || tenant.equals(e.tenant());
  }

  private static Optional<Duration> parseSince(String text) {
    Matcher m = SINCE.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    return Optional.of(switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    });
  }

  private static void checkId(String option, String value, List<String> errors) {
    if (value != null && !ID.matcher(value).matches()) {
      errors.add(option + ": expected 1 to 128 of A-Z a-z 0-9 . _ : -; got \"" + shown(value)
          + "\"");
    }
  }

  /** Operator text echoed in an error: at most 64 characters, control characters as '?'. */
  static String shown(String text) {
    return Printable.of(text, 64);
  }
}
