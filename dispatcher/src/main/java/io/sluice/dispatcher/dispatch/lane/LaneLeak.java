package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.SlotClaim;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane's conversation with the leak it shares with every instance: its claims, the names of
 * its concurrency leases, and the things it tells the leak that no caller waits for (a lease
 * given back, unused cost given back, a throttle shared). What the leak answers is the lane's to
 * act on; what the leak fails to take is only logged, for each of those is safe to lose (a lease
 * expires, unused cost stays charged, a throttle is obeyed here all the same).
 */
final class LaneLeak {
  private static final Logger LOG = LoggerFactory.getLogger(LaneLeak.class);

  /** A claim sent: the leak's answer to come, and the limited request it answers, or null. */
  record Sent(CompletionStage<SlotClaim> answer, LimitedClaim request) {}

  private final String name;
  private final LeakyBucket leak;
  private final long lookaheadMicros;
  /** How long a concurrency lease outlives its slot if never released: the call's timeout and some. */
  private final long leaseMicros;
  /** Names this lane's leases and its busy-tenant entry: unique per lane instance and process. */
  private final String member = UUID.randomUUID().toString();
  /** Claims that took leases; guarded by the lane's monitor. */
  private long claims;

  LaneLeak(String name, LeakyBucket leak, long lookaheadMicros, long leaseMicros) {
    this.name = name;
    this.leak = leak;
    this.lookaheadMicros = lookaheadMicros;
    this.leaseMicros = leaseMicros;
  }

  /** How far ahead the lane claims slots, in nanoseconds. */
  long lookaheadNanos() {
    return TimeUnit.MICROSECONDS.toNanos(lookaheadMicros);
  }

  /** The lease prefix of the next claim that takes leases, unique per claim. Caller holds the monitor. */
  String nextLeases() {
    return member + ":" + claims++;
  }

  /**
   * Claims {@code wanted} slots at the dispatcher's pace {@code factor}. The leak spaces a claim's
   * slots by the rate it is given, so slots claimed at a factor below 1 are further apart, never
   * closer than the rate allows. Limits beyond the rate are claimed all at once, each slot
   * reserving {@code slotCost} and, with {@code leases}, a concurrency lease. Throws what the leak
   * throws.
   */
  Sent claim(ProviderLimits enforced, double factor, int wanted, long slotCost, String leases) {
    if (enforced.hasLimitsBeyondRate()) {
      LimitedClaim request = new LimitedClaim(wanted, lookaheadMicros, slotCost,
          leases == null ? member : leases, leaseMicros);
      return new Sent(leak.claim(name, factor < 1
          ? enforced.withRate(enforced.ratePerSecond() * factor) : enforced, request), request);
    }
    return new Sent(leak.claim(name, enforced.ratePerSecond() * factor, wanted, lookaheadMicros),
        null);
  }

  /** Gives back a concurrency lease; a lost release only waits for the lease to expire. */
  CompletionStage<Void> release(String lease) {
    return leak.release(name, lease).whenComplete((ok, error) -> {
      if (error != null) {
        LOG.debug("{}: could not release lease {} ({}); it expires on its own", name, lease,
            error.toString());
      }
    });
  }

  /** The event sent in a slot cost {@code actual}, less than the {@code reserved}: gives the rest back. */
  void giveBack(ProviderLimits limits, long slotMicros, long reserved, long actual) {
    leak.settle(name, limits, slotMicros, reserved, actual).whenComplete((ok, error) -> {
      if (error != null) {
        LOG.debug("{}: could not give back unused cost ({}); it stays charged", name,
            error.toString());
      }
    });
  }

  /** Shares a provider's "too many" with every instance: the leak pauses, and slows a repeat. */
  void throttled(double ratePerSecond, long retryAfterMillis, long claimedAtMicros) {
    leak.throttled(name, ratePerSecond, retryAfterMillis, claimedAtMicros)
        .whenComplete((ok, error) -> {
          if (error != null) {
            LOG.warn("{}: could not share a provider throttle through the leak ({})", name,
                error.toString());
          }
        });
  }

  /**
   * Publishes this lane's busy tenants per tier and answers the sums over every lane sharing the
   * provider; a leak that throws answers with the failure.
   */
  CompletionStage<Map<String, Integer>> busyTenants(Map<String, Integer> busy, long ttlMicros) {
    try {
      return leak.busyTenants(name, member, busy, ttlMicros);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
