package io.sluice.topology.limiter;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.List;

/**
 * One marker key per Redis Cluster slot, {@code sluice:v1:{~tag}:marker}, the tag chosen so the
 * marker lands in that slot: the token-bucket script reads the marker of its bucket's slot (a
 * script may only touch keys of one slot), and a missing marker tells it that Redis lost the
 * slot's data.
 *
 * <p>Value: {@code 0} when nothing is known lost (set by the gate at start where no marker is yet:
 * a first use of this Redis), or the Redis time in microseconds at which the script found the
 * marker missing: from then on, for one reservation horizon, a bucket Redis no longer has may have
 * paid reservations still in the ladder, and starts as if it held a full horizon of them (see
 * {@code token_bucket.lua}). The marker has no TTL; on a standalone server the 16384 markers are
 * about a megabyte.
 */
public final class SlotMarkers {
  /** "~" appears in no tenant or provider name, so a marker never shares a key with a bucket. */
  private static final String[] TAGS = tags();

  private SlotMarkers() {}

  /** The marker of the slot {@code redisKey} hashes to (hash tags respected). */
  public static String markerOf(String redisKey) {
    return marker(TAGS[SlotHash.getSlot(redisKey)]);
  }

  /** Every slot's marker, one per slot. */
  public static List<String> all() {
    List<String> keys = new ArrayList<>(SlotHash.SLOT_COUNT);
    for (String tag : TAGS) {
      keys.add(marker(tag));
    }
    return keys;
  }

  private static String marker(String tag) {
    return "sluice:v1:{" + tag + "}:marker";
  }

  /** The first "~n" (n in base 36) that hashes to each slot: about 170,000 CRC16s, once. */
  private static String[] tags() {
    String[] tags = new String[SlotHash.SLOT_COUNT];
    int found = 0;
    for (long n = 0; found < tags.length; n++) {
      String tag = "~" + Long.toString(n, 36);
      int slot = SlotHash.getSlot(tag);
      if (tags[slot] == null) {
        tags[slot] = tag;
        found++;
      }
    }
    return tags;
  }
}
