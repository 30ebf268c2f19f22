package io.sluice.gate.limiter;

/**
 * A run of consecutive places in a bucket's waiting line, taken in one Redis call when an event
 * was queued, and handed out locally to the next events of the same bucket: the over-limit cache.
 * Without it a tenant far beyond its reservation horizon would cost one round trip per event just
 * to learn that it must wait.
 *
 * <p>The line is a schedule for unpaid events, in units of refill: the asker's turn is
 * {@code turn}, and the place of the event that takes units {@code [u, u + cost)} of the run is
 * {@code turn + u / refill}, exactly where Redis would have put it had each event asked in turn
 * (nothing else of this bucket reaches Redis meanwhile, since the bucket's events all pass through
 * this one stream task). An event holding a place waits in the ladder until its turn and comes
 * back holding a ticket, as any queued event does. Places charge nothing, so they cannot
 * over-admit. They are not used:
 * <ul>
 *   <li>once the refill may have made room within the horizon for the event (judged on the level
 *       Redis reported, refilled up to an upper bound of its clock): Redis would charge it a
 *       reservation rather than queue it, so it is asked. Like Envoy's over-limit cache, the
 *       answer "over the limit" is remembered only until the limit could open;
 *   <li>when the place's turn has passed (the line has moved on);
 *   <li>after the same use window as a lease.
 * </ul>
 * So an event gets the same decision and turn from these places as from Redis itself.
 *
 * <p>Unused places are given back with the next request ({@link #giveBack}); Redis shortens the
 * line only if it still ends with them. Not thread-safe: it belongs to one stream task.
 */
public final class LinePlaces {
  private final BucketSpec spec;
  private final double levelBefore;
  private final double microsPerUnit;
  private final long turnMicros;
  private final long lineEndMicros;
  private final long bucketNowMicros;
  private final int units;
  private final long useUntilMicros;
  private final BucketClock clock;
  private int used;

  /**
   * @param queued    an acquisition that queued its asker (nothing granted)
   * @param need      the asker's units: the first {@code need} units of line are its own
   * @param units     units of line taken (the request's want), &ge; need
   * @param useMicros how long after the answer (bucket clock) places may be handed out
   */
  public LinePlaces(BucketSpec spec, Acquisition queued, int need, int units, long useMicros,
                    long sentNanos, long receivedNanos) {
    if (queued.isGranted() || queued.lineEndMicros() <= 0 || units < need) {
      throw new IllegalArgumentException("places come from a queued answer with a line end: " + queued);
    }
    this.spec = spec;
    this.levelBefore = queued.levelBefore();
    this.microsPerUnit = spec.microsPerUnit();
    this.bucketNowMicros = queued.nowMicros();
    this.turnMicros = queued.nowMicros() + queued.ticketMicros();
    this.lineEndMicros = queued.lineEndMicros();
    this.units = units;
    this.used = need;
    this.useUntilMicros = queued.nowMicros() + useMicros;
    this.clock = new BucketClock(queued.nowMicros(), sentNanos, receivedNanos);
  }

  /**
   * The turn (bucket clock, microseconds) of an event of {@code cost} units seen now, or -1 when
   * these places cannot serve it (too few left, the use window is over, or its turn has passed);
   * the caller then asks Redis.
   */
  public long take(int cost, long localNanos) {
    long upper = clock.upperMicros(localNanos);
    long lower = clock.lowerMicros(localNanos);
    if (used + cost > units || upper >= useUntilMicros || mayFit(cost, upper)) {
      return -1;
    }
    long turn = turnMicros + (long) Math.ceil(used * microsPerUnit);
    if (turn < lower) {
      return -1;
    }
    used += cost;
    return turn;
  }

  /**
   * Whether Redis might find room for {@code cost} units within the horizon by {@code atMicros}:
   * the script's fit test on the reported level refilled since (other charges only lower it).
   */
  private boolean mayFit(int cost, long atMicros) {
    double level = levelBefore + (atMicros - bucketNowMicros) * spec.refillPerSecond() / 1_000_000;
    return Math.floor(level + spec.horizonMicros() * spec.refillPerSecond() / 1_000_000 + 1e-9) >= cost;
  }

  /** Places not handed out, to give back with the next request; null when all were used. */
  public PlacesRelease giveBack() {
    return used == units ? null : new PlacesRelease(lineEndMicros, units - used);
  }

  /** The bucket's shape this was granted under. */
  BucketSpec spec() {
    return spec;
  }
}
