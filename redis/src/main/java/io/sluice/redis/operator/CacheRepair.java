package io.sluice.redis.operator;

import java.time.Duration;
import java.util.Optional;

/**
 * Whether the cache of operator state in Redis must be seeded again from the operator topic:
 * the pure decision of a role's {@code CacheKeeper}, with time passed in.
 *
 * <p><b>The marker.</b> Whoever seeds a keyspace (the pauses' hash, the tenants' registry) leaves
 * a marker inside it, in the same hash slot: {@code seeding <token> <ms>} while it writes, then
 * {@code seeded}. Redis loses its data with the marker (a {@code FLUSHALL}, a restart without
 * persistence, a failover to an empty replica), and only then: so a missing marker is a cache to
 * seed again, whatever else Redis holds meanwhile (writes made since the loss are in the topic too,
 * written there first).
 *
 * <p><b>The rules</b>, in order:
 * <ol>
 *   <li>Redis does not answer: nothing to do but wait ({@link Action#WAIT_FOR_REDIS}).</li>
 *   <li>The topic has not been read to its end yet: wait ({@link Action#WAIT_FOR_LOG}). Seeding
 *       from part of the log and marking the cache seeded would leave the rest out for good.</li>
 *   <li>Marker {@code seeded}: the cache is whole; only the changes read since are written to it
 *       ({@link Action#FOLLOW}).</li>
 *   <li>Marker absent: seed ({@link Action#SEED}).</li>
 *   <li>Marker {@code seeding}, written less than {@link #SEEDING_PATIENCE} ago: another role is
 *       seeding; leave it ({@link Action#WAIT_FOR_SEEDER}). Older: that role died mid-way; seed.</li>
 * </ol>
 * A seed ends by turning its own {@code seeding} marker into {@code seeded}, only if the marker is
 * still its own: a loss during the seed removes it, and the next round seeds again.
 */
public final class CacheRepair {
  /** How long a seed in progress by another role is left to finish. */
  public static final Duration SEEDING_PATIENCE = Duration.ofSeconds(30);

  /** What the keeper does now. */
  public enum Action { WAIT_FOR_REDIS, WAIT_FOR_LOG, FOLLOW, SEED, WAIT_FOR_SEEDER }

  /** The marker as Redis answered it. */
  public sealed interface Marker {
    /** No marker: Redis lost the keyspace (or never held it). */
    record Absent() implements Marker {}

    /** A role is seeding since {@code sinceMillis}. */
    record Seeding(String token, long sinceMillis) implements Marker {}

    /** The cache holds the whole log. */
    record Seeded() implements Marker {}

    /** The marker's text as stored; anything unreadable counts as absent. */
    static Marker parse(String text) {
      if (text == null || text.isEmpty()) {
        return new Absent();
      }
      if (text.equals("seeded")) {
        return new Seeded();
      }
      String[] parts = text.split(" ");
      if (parts.length == 3 && parts[0].equals("seeding")) {
        try {
          return new Seeding(parts[1], Long.parseLong(parts[2]));
        } catch (NumberFormatException e) {
          return new Absent();
        }
      }
      return new Absent();
    }
  }

  private CacheRepair() {}

  /** The marker text of a seed by {@code token} starting at {@code nowMillis}. */
  public static String seeding(String token, long nowMillis) {
    return "seeding " + token + " " + nowMillis;
  }

  /** The marker text of a whole cache. */
  public static final String SEEDED = "seeded";

  /** Parses a stored marker (null: none). */
  public static Marker marker(String text) {
    return Marker.parse(text);
  }

  /**
   * @param logRead whether the operator topic has been read to the end it had when this role
   *                started reading it
   * @param marker  the keyspace's marker, or empty when Redis did not answer
   * @param nowMillis the wall clock
   */
  public static Action decide(boolean logRead, Optional<Marker> marker, long nowMillis) {
    if (marker.isEmpty()) {
      return Action.WAIT_FOR_REDIS;
    }
    if (!logRead) {
      return Action.WAIT_FOR_LOG;
    }
    if (marker.get() instanceof Marker.Seeded) {
      return Action.FOLLOW;
    }
    if (marker.get() instanceof Marker.Seeding s
        && nowMillis - s.sinceMillis() < SEEDING_PATIENCE.toMillis()) {
      return Action.WAIT_FOR_SEEDER;
    }
    return Action.SEED;
  }
}
