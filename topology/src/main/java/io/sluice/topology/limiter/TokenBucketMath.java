package io.sluice.topology.limiter;

/**
 * The pure-Java mirror of {@code lua/token_bucket.lua}: the same decision, step by step, with
 * {@code now} passed in. It exists for three reasons: a table-driven specification runs against
 * both this and the script on a real Redis (so the script's math is pinned down by readable
 * tests), the gate's {@code local} fallback enforces the same bucket in-process when Redis is down,
 * and the lease arithmetic is checked against it.
 *
 * <p>Read the script's header for the model. In short: the level may go negative (units reserved
 * ahead, each due at {@code now + (j - level)/refill}); the reservation horizon bounds that debt;
 * an event that does not fit gets a ticket (a place in the bucket's waiting line) instead of a
 * charge, and is charged without the horizon check when it comes back holding it.
 *
 * <p>All arithmetic is in doubles, as Lua's numbers are, so the two agree to the last bit.
 */
public final class TokenBucketMath {
  private static final double FIT_EPSILON = 1e-9;

  private TokenBucketMath() {}

  /** A decision and the state the bucket holds after it. */
  public record Step(Acquisition acquisition, BucketState next) {}

  /**
   * Decides one request against a bucket.
   *
   * @param state     the stored state, or null for a bucket never seen (full)
   * @param nowMicros the clock; if it is behind the stored time the stored time is used (no
   *                  refill backwards)
   */
  public static Step acquire(BucketState state, BucketSpec spec, AcquireRequest request, long nowMicros) {
    BucketState s = state == null ? BucketState.full(spec, nowMicros) : state;
    double level = s.level();
    long ts = s.updatedMicros();
    double line = s.lineMicros();
    if (nowMicros > ts) {
      level = Math.min(spec.capacity(), level + (nowMicros - ts) * spec.refillPerSecond() / 1_000_000);
      ts = nowMicros;
    }
    long now = ts;
    double before = level;
    double usPerUnit = 1_000_000 / spec.refillPerSecond();
    double fit = Math.floor(level + spec.horizonMicros() * spec.refillPerSecond() / 1_000_000 + FIT_EPSILON);

    int granted = 0;
    long ticket = 0;
    if (request.want() <= fit) {
      granted = request.want();
    } else if (request.need() <= fit) {
      granted = (int) fit;
    } else if (request.holder()) {
      granted = request.need();
    } else {
      double open = now + (request.need() - level) * usPerUnit - spec.horizonMicros();
      double turn = Math.max(open, line);
      line = turn + request.need() * usPerUnit;
      ticket = (long) Math.ceil(turn - now);
    }
    level -= granted;
    // The script only rewrites the line while it lies ahead; a passed line changes no decision.
    double storedLine = line > now ? line : s.lineMicros();
    return new Step(new Acquisition(granted, before, now, ticket), new BucketState(level, ts, storedLine));
  }
}
