package io.sluice.app.admin;

import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.BucketState;
import io.sluice.gate.limiter.TokenBucketMath;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The level a tenant's bucket has now, as the gate would decide by it: the hash
 * {@code token_bucket.lua} stores, read into a {@link BucketState}, brought to now by the gate's own
 * math ({@link TokenBucketMath}, the script's mirror), and its level before any charge.
 *
 * <p>Why not a refill formula of its own: a bucket's level is more than its stored tokens refilled
 * since their time. Units held by a lease not yet ended lower its cap, an old line of reservations
 * after a raise slows its refill, a lease that ended returns its units at its deadline; a formula
 * that ignored them showed a level the gate would not decide by. So the status asks the same code
 * the gate's specification tables hold to the script.
 *
 * <p>A bucket Redis does not have is full, unless its slot's marker says Redis lost the slot's data
 * (missing: the script would stamp the loss now; a time: lost then), when it is the worst the lost
 * bucket could have been, as the script rebuilds it. The one difference: the gate's leasing calls
 * name their hold, which may push such a rebuilt bucket's start later; the status knows no hold.
 */
final class BucketLevel {
  private BucketLevel() {}

  /**
   * The level at {@code nowMicros} (Redis's clock).
   *
   * @param fields the bucket's hash as stored (empty: Redis does not have it)
   * @param marker its slot's marker ({@code null}: missing; {@code "0"}: nothing lost)
   */
  static double at(Map<String, String> fields, String marker, BucketSpec spec, long nowMicros) {
    return probe(fields, marker, spec, nowMicros).levelBefore();
  }

  /**
   * When one unit asked at {@code nowMicros} would be due (Redis's clock, µs): at once from a
   * bucket with a unit to spare, else after the units sold ahead of it (its reservation), and no
   * sooner than its turn in the line (a ticket: it comes back then to be charged). So: when the
   * tenant's backlog toward this provider has passed its quota, an estimate of when the last of
   * its events already waiting is due by it.
   */
  static long dueMicros(Map<String, String> fields, String marker, BucketSpec spec,
      long nowMicros) {
    Acquisition a = probe(fields, marker, spec, nowMicros);
    // A ticket is when to come back and be charged; the unit is due no sooner than that, nor
    // before the refill reaches it.
    return a.isGranted() ? a.dueOfUnit(1, spec)
        : Math.max(a.dueOfUnit(1, spec), a.nowMicros() + a.ticketMicros());
  }

  /** The gate's answer to one unit asked now, releasing nothing; the bucket is not changed. */
  private static Acquisition probe(Map<String, String> fields, String marker, BucketSpec spec,
      long nowMicros) {
    BucketState state = fields.isEmpty() ? null : parse(fields);
    long lost = 0;
    if (state == null) {
      lost = marker == null ? nowMicros : Long.parseLong(marker);
    }
    // Any request that releases nothing sees the same level before its charge: one unit asks least.
    return TokenBucketMath.acquire(state, spec, AcquireRequest.single(1), nowMicros, lost)
        .acquisition();
  }

  /** The script's hash fields (see its header) as the math's state. */
  static BucketState parse(Map<String, String> fields) {
    List<BucketState.HeldLease> leases = new ArrayList<>();
    fields.forEach((name, value) -> {
      if (name.startsWith("lease:")) {
        // "deadline units held granted lead"
        String[] f = value.split(" ");
        leases.add(new BucketState.HeldLease(Long.parseLong(name.substring(6)), Long.parseLong(f[0]),
            Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]), Double.parseDouble(f[4])));
      }
    });
    leases.sort(Comparator.comparingLong(BucketState.HeldLease::id));
    // "rate", or "rate debt_end top" after a cut that kept the debt in units.
    String[] rate = fields.getOrDefault("rate", "0").split(" ");
    // "rate end": the old line, while it runs.
    String[] old = fields.getOrDefault("old", "0 0").split(" ");
    // A bucket rebuilt after a loss: when the lost one's last reservation is due (its rate is lost).
    long lostEnd = Long.parseLong(fields.getOrDefault("lost_end", "0"));
    return new BucketState(Double.parseDouble(fields.get("tokens")), Long.parseLong(fields.get("ts")),
        Double.parseDouble(fields.getOrDefault("line", "0")), Long.parseLong(fields.getOrDefault("seq", "0")),
        leases, Double.parseDouble(rate[0]), rate.length > 2 ? Double.parseDouble(rate[2]) : 0,
        rate.length > 2 ? Long.parseLong(rate[1]) : 0, Double.parseDouble(old[0]), Long.parseLong(old[1]), lostEnd);
  }
}
