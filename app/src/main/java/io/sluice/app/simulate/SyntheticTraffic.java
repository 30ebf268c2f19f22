package io.sluice.app.simulate;

import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.validation.ValidationResult;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generated traffic, for measuring the simulation at a size no file is at hand for (a day at
 * 1,000 events/s is 86.4 million events, 9 GB of JSON lines): {@code rate} events a second, evenly
 * spaced, over {@code span}, from {@code tenants} tenants {@code t0000}, {@code t0001}, ... drawn
 * with a fixed seed and skewed (tenant {@code i} of {@code n} is drawn with probability
 * {@code sqrt((i + 1) / n) - sqrt(i / n)}: the first sends about 3 % of a thousand tenants'
 * traffic, the last 0.016 %), tenant {@code i} always toward provider {@code i mod P} of the
 * configuration's providers in name order, cost 1, no deadline or time asked for.
 *
 * <p>Each tenant's event is one {@link WorkEvent} made once and handed over at each of its
 * arrivals (the simulation reads none of an event's identity), so reading costs nothing per event:
 * what is measured is the simulation's own work.
 */
public final class SyntheticTraffic implements Arrivals {
  /** What to generate: {@code rate=1000,tenants=1000,span=PT24H,seed=1}. */
  public record Spec(int ratePerSecond, int tenants, Duration span, long seed) {
    public Spec {
      if (ratePerSecond < 1 || ratePerSecond > 1_000_000 || tenants < 1 || span.isNegative() || span.isZero()) {
        throw new IllegalArgumentException("--generate needs rate 1..1000000, tenants >= 1 and a positive span");
      }
    }

    /** Events it makes in all. */
    public long events() {
      return span.toMillis() * ratePerSecond / 1000;
    }

    /** Reads {@code rate=R,tenants=N,span=ISO-8601[,seed=S]}; the message names the part it cannot read. */
    public static Spec parse(String text) {
      int rate = 0;
      int tenants = 0;
      Duration span = null;
      long seed = 1;
      for (String part : text.split(",")) {
        String[] kv = part.trim().split("=", 2);
        try {
          switch (kv.length == 2 ? kv[0].trim() : "") {
            case "rate" -> rate = Integer.parseInt(kv[1].trim());
            case "tenants" -> tenants = Integer.parseInt(kv[1].trim());
            case "span" -> span = Duration.parse(kv[1].trim());
            case "seed" -> seed = Long.parseLong(kv[1].trim());
            default -> throw new IllegalArgumentException("--generate: '" + Text.shown(part, 40)
                + "' is not one of rate=, tenants=, span=, seed=");
          }
        } catch (NumberFormatException | DateTimeParseException e) {
          throw new IllegalArgumentException("--generate: '" + Text.shown(part, 40) + "' is not readable");
        }
      }
      if (span == null) {
        throw new IllegalArgumentException("--generate needs span= (e.g. span=PT24H)");
      }
      return new Spec(rate, tenants, span, seed);
    }
  }

  /** Its epoch: 2023-11-14T22:13:20Z. */
  static final long START_MILLIS = 1_700_000_000_000L;
  private static final int VALUE_BYTES = 120;

  private final Spec spec;
  private final ValidationResult[] events;
  private final SplittableRandom random;
  private final long total;
  private long made;

  /** @param providers the configuration's providers, in name order */
  public SyntheticTraffic(Spec spec, List<String> providers) {
    if (providers.isEmpty()) {
      throw new IllegalArgumentException("--generate needs a configuration with a provider");
    }
    this.spec = spec;
    this.events = new ValidationResult[spec.tenants()];
    for (int i = 0; i < events.length; i++) {
      events[i] = new ValidationResult.Valid(new WorkEvent("synthetic", String.format("t%04d", i),
          providers.get(i % providers.size()), WorkEvent.DEFAULT_COST, null, null, null, null));
    }
    this.random = new SplittableRandom(spec.seed());
    this.total = spec.events();
  }

  @Override
  public boolean next(Sink sink) {
    if (made >= total) {
      return false;
    }
    double u = random.nextDouble();
    int tenant = Math.min(events.length - 1, (int) (u * u * events.length));
    long at = START_MILLIS + made * 1000 / spec.ratePerSecond();
    made++;
    sink.arrive(at, events[tenant], VALUE_BYTES);
    return true;
  }

  @Override
  public long linesRead() {
    return made;
  }

  @Override
  public boolean bounded() {
    return false;
  }

  @Override
  public void close() {
    // nothing held
  }
}
