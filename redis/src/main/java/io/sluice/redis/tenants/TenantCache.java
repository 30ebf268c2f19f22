package io.sluice.redis.tenants;

import java.time.Duration;
import java.util.Iterator;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gate's memory of the tenant registry: the records of the tenants it has looked up lately, and
 * the rules for when to trust them, ask Redis, or do without. Pure (no I/O, time passed in):
 * {@link TenantWatcher} does the asking. Thread-safe: every stream thread reads, the watcher's
 * thread applies changes.
 *
 * <h2>Fresh within a poll</h2>
 * Every write to the registry bumps its version and names its tenant in a change stream. The
 * watcher reads the changes since {@link #version()} every second and {@link #apply}s them: the
 * tenants they name are forgotten, and looked up again on their next event. When the changes
 * cannot all be read (more than a poll takes, trimmed from the stream, or the version went back
 * because Redis was wiped), everything is forgotten. A record read from Redis is kept only if it
 * is at least as new as the changes applied ({@link #store}): a read that raced a change is used
 * for its event and not kept, so no tenant keeps an old record past the poll after its change.
 *
 * <h2>Bounded by active tenants</h2>
 * At most {@code capacity} tenants are kept, whether they have a record or not (a tenant without
 * one is kept as such, so that the file's tenants cost one look-up, not one per event). Beyond
 * that, a sweep forgets tenants not looked up since the previous sweep (the CLOCK approximation
 * of least recently used) until a tenth is free.
 *
 * <h2>Misses</h2>
 * A tenant not kept is looked up in Redis ({@link Miss#FETCH}), once, by the event that finds it
 * missing; except when the registry is known to be empty ({@link Miss#ABSENT}: no call at all, the
 * common case of a deployment that does not use it), and while Redis does not answer
 * ({@link Miss#UNAVAILABLE}: no call, the file decides that event, nothing is kept) until a poll
 * succeeds again. Redis does not answer: a poll failed, or {@value #FAILED_LOOKUPS} look-ups in a
 * row did (one slow answer, a pause of the collector say, is not an outage: it costs its own
 * event the file's decision, not every new tenant's for the next second).
 *
 * <h2>Redis down</h2>
 * What is kept stays in force, however old ({@link #stale} says so): a tenant given a bigger quota
 * keeps it through an outage rather than falling back to the file's.
 */
public final class TenantCache {
  /** What to do about a tenant that is not kept. */
  public enum Miss {
    /** Ask Redis, and {@link #store} the answer. */
    FETCH,
    /** The registry is empty: the tenant has no record (nothing to keep: ask again next time). */
    ABSENT,
    /** Redis is not answering: decide by the file, keep nothing. */
    UNAVAILABLE
  }

  /** Look-ups failing in a row that count as Redis not answering. */
  public static final int FAILED_LOOKUPS = 3;

  /** Kept records are called stale when no poll has succeeded for this long. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(5);

  /** One kept tenant: its record (null: none) and whether it was looked up since the last sweep. */
  public static final class Kept {
    private final TenantRecord record;
    private volatile boolean used = true;

    Kept(TenantRecord record) {
      this.record = record;
    }

    /** The tenant's record; null when it has none. */
    public TenantRecord record() {
      return record;
    }
  }

  private final int capacity;
  private final ConcurrentHashMap<String, Kept> slots = new ConcurrentHashMap<>();
  private final AtomicBoolean sweeping = new AtomicBoolean();
  private final AtomicInteger failedLookups =
      new AtomicInteger();
  /** The registry version whose changes have all been applied; -1 before the first poll. */
  private volatile long version = -1;
  /** Records in the registry at {@link #version}; -1 when not known. */
  private volatile long registered = -1;
  private volatile boolean failing;
  /** When the last poll succeeded (nanoseconds, the caller's clock); valid when {@link #polled}. */
  private volatile long lastPollNanos;
  private volatile boolean polled;

  public TenantCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** The tenant as kept; null when it is not kept. */
  public Kept cached(String tenant) {
    Kept kept = slots.get(tenant);
    if (kept != null && !kept.used) {
      kept.used = true; // written only when it changes: a hit costs no shared write
    }
    return kept;
  }

  /**
   * What to do about a tenant that is not kept, and the version the answer holds at: a
   * {@link Miss#FETCH}'s answer is {@link #store}d with it, so that a change applied meanwhile
   * refuses it. An {@link Miss#ABSENT} answer is not kept: the next miss reads the count again,
   * which costs less than a slot per tenant of an empty registry.
   */
  public MissDecision onMiss() {
    // The version first, then the count: apply writes them the other way round, so the count read
    // is never older than the version (an empty registry seen is empty at that version or later).
    long at = version;
    if (failing) {
      return new MissDecision(Miss.UNAVAILABLE, at);
    }
    return new MissDecision(registered == 0 ? Miss.ABSENT : Miss.FETCH, at);
  }

  /** {@link #onMiss}'s answer. */
  public record MissDecision(Miss miss, long version) {}

  /**
   * Keeps {@code record} (null: the tenant has none) as read at registry version {@code read};
   * not kept when changes newer than the read were applied meanwhile (it may be one of them).
   *
   * @return whether it was kept
   */
  public boolean store(String tenant, TenantRecord record, long read) {
    if (failedLookups.get() != 0) {
      failedLookups.set(0);
    }
    boolean[] kept = new boolean[1];
    // The check and the put are one step per tenant, so a change applied meanwhile (the version
    // is raised before its tenants are removed) either refuses this read or removes it after.
    slots.compute(tenant, (id, old) -> {
      if (read < version) {
        return old;
      }
      kept[0] = true;
      return new Kept(record);
    });
    if (kept[0] && slots.size() > capacity) {
      sweep();
    }
    return kept[0];
  }

  /** Applies a poll's answer, read at {@code nowNanos}. */
  public void apply(TenantRegistry.Changes changes, long nowNanos) {
    boolean all = changes.gap() || changes.version() < version;
    long before = version;
    // The count before the version (see onMiss), the version before the removals (see store).
    registered = changes.tenants();
    version = changes.version();
    if (all) {
      slots.clear();
    } else if (changes.version() != before) {
      changes.ids().forEach(slots::remove);
    }
    failedLookups.set(0);
    failing = false;
    polled = true;
    lastPollNanos = nowNanos;
  }

  /** Redis did not answer a poll: no look-ups until a poll succeeds. */
  public void failed() {
    failing = true;
  }

  /**
   * Redis did not answer a look-up; the {@value #FAILED_LOOKUPS}th in a row (no answer
   * {@link #store}d between them) counts as {@link #failed}.
   *
   * @return whether Redis now counts as not answering
   */
  public boolean lookupFailed() {
    if (failedLookups.incrementAndGet() >= FAILED_LOOKUPS) {
      failing = true;
    }
    return failing;
  }

  /** True while Redis is not answering. */
  public boolean failing() {
    return failing;
  }

  /** True when no poll succeeded for {@link #STALE_AFTER} (or none yet): what is kept may be old. */
  public boolean stale(long nowNanos) {
    return !polled || nowNanos - lastPollNanos > STALE_AFTER.toNanos();
  }

  /** When the last poll succeeded (the {@link #apply} caller's nanoseconds); empty before the first. */
  public OptionalLong lastPollNanos() {
    return polled ? OptionalLong.of(lastPollNanos) : OptionalLong.empty();
  }

  /** The registry version whose changes have been applied; -1 before the first poll. */
  public long version() {
    return version;
  }

  /** Tenants kept. */
  public int size() {
    return slots.size();
  }

  /** Forgets tenants not looked up since the last sweep until a tenth is free (one sweep at a time). */
  private void sweep() {
    if (!sweeping.compareAndSet(false, true)) {
      return;
    }
    try {
      int target = capacity - Math.max(1, capacity / 10);
      // Two turns at most: the first clears every mark, so the second finds victims.
      for (int turn = 0; turn < 2 && slots.size() > target; turn++) {
        for (Iterator<Kept> it = slots.values().iterator(); it.hasNext() && slots.size() > target; ) {
          Kept slot = it.next();
          if (slot.used) {
            slot.used = false;
          } else {
            it.remove();
          }
        }
      }
    } finally {
      sweeping.set(false);
    }
  }
}
