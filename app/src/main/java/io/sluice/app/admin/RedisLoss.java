package io.sluice.app.admin;

import java.util.List;
import java.util.Optional;

/**
 * Whether Redis lost its data lately, judged from a sample of the slots' markers, and until when
 * that holds tenants back: what {@code status} says after a {@code FLUSHALL}, a restart without
 * persistence or a failover to an empty replica.
 *
 * <p>Why it must be said: after a loss every tenant's bucket that Redis no longer has starts as the
 * worst the lost one could have been, empty with a full reach of paid reservations (the script's
 * "Lost data"; the bound {@code capacity + refill * T} holds across the loss). So for a reach after
 * the loss ({@code horizon + max(horizon, 1 s)}, 60 s with the default horizon of 30 s) the gate
 * admits nothing new and every provider can sit idle while its events wait in the delay steps,
 * though no tenant was near its quota (issue 39: every endpoint idle for 26 s, 34 s after a
 * {@code FLUSHALL}). That is the tenants' quota, a reason a person must be able to see: the
 * markers say when the loss was found.
 *
 * <p>A marker is {@code "0"} when nothing was lost, the time (microseconds, Redis's clock) a
 * script found its slot's loss, or missing: lost and not yet found by a script (or no role has
 * started on this Redis yet: a role marks every slot when it starts).
 *
 * @param lostAtMicros         the latest loss among the sampled slots (now for a missing marker)
 * @param slotsLost            sampled slots whose data was lost
 * @param slotsSampled         slots read
 * @param admissionsFromMicros from when a rebuilt bucket may admit again: the loss plus a reach
 * @param refilledByMicros     from when every rebuilt bucket is full again: plus its longest refill
 */
public record RedisLoss(long lostAtMicros, int slotsLost, int slotsSampled, long admissionsFromMicros,
    long refilledByMicros) {

  /** Slots read per status: one in 256, so a lost shard of a cluster (thousands of slots) shows. */
  public static final int SAMPLED_SLOTS = 64;

  /**
   * The loss the sampled markers show, if it still holds tenants back at {@code nowMicros}.
   *
   * @param markers      each sampled slot's marker, empty when missing
   * @param reachMicros  the longest reach of any quota ({@code horizon + max(horizon, 1 s)})
   * @param refillMicros the longest time any quota takes to refill from empty to full
   */
  public static Optional<RedisLoss> judge(List<Optional<String>> markers, long nowMicros, long reachMicros,
      long refillMicros) {
    long lostAt = 0;
    int lost = 0;
    for (Optional<String> marker : markers) {
      long at = marker.map(RedisLoss::time).orElse(nowMicros);
      if (at > 0) {
        lost++;
        lostAt = Math.max(lostAt, Math.min(at, nowMicros));
      }
    }
    if (lost == 0 || nowMicros >= lostAt + reachMicros + refillMicros) {
      return Optional.empty();
    }
    return Optional.of(new RedisLoss(lostAt, lost, markers.size(), lostAt + reachMicros,
        lostAt + reachMicros + refillMicros));
  }

  /** A marker's loss time; 0 for intact, and for a value no script writes (read as intact). */
  private static long time(String marker) {
    try {
      return Math.max(0, Long.parseLong(marker.trim()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
