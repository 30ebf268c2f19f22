package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PausedEntries;
import io.sluice.schemas.event.Reason;
import java.time.Instant;
import java.util.List;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Carries out the operators' pauses ({@link PauseRules}) on the events this dispatcher holds:
 * takes the events a new pause covers out of their lanes (their calls have not started; the slots
 * claimed for them go unused), hands back the events a lifted pause held, and ends as expired the
 * held events whose deadline passed. The consumer thread owns it.
 *
 * <p>A pause has no end an operator promised, so what it holds is kept in memory for a few
 * seconds only ({@link #PARK_AFTER_NANOS}: a pause lifted quickly costs nothing), then parked in
 * Kafka and looked at again every {@link #RECHECK_MILLIS} ms ({@code Reason.PARKED}): held
 * events then hold neither memory, nor their partition's commit (which a pause longer than the
 * topic's retention would have pinned below the log's start), nor the records that pause reading
 * (which stopped every other provider on the partition). The price: a record per held event per
 * {@link #RECHECK_MILLIS} ms, and a backlog that comes back up to that long after the pause is
 * lifted.
 */
final class PauseKeeper {
  /** How long a pause holds an event in memory before it is parked. */
  static final long PARK_AFTER_NANOS = TimeUnit.SECONDS.toNanos(5);
  /** How long a parked event waits before it is looked at again. */
  static final long RECHECK_MILLIS = 30_000;
  private final LongSupplier nanoTime;
  /** When each held event was held. */
  private final Map<DispatchEntry, Long> heldAt = new IdentityHashMap<>();
  private final Supplier<PauseRules> pauses;
  /** Events a pause stops, held until it ends or their deadline does. */
  private final PausedEntries<DispatchEntry> paused;
  private final WithoutCall withoutCall;
  /** {@link #paused}'s counts per provider, for gauges on other threads. */
  private volatile Map<String, Integer> heldByPause = Map.of();
  /** The rules the lanes' queues were last sorted by. */
  private PauseRules applied = PauseRules.NONE;

  /** @param perProvider events held per provider at most (beyond, they go round the ladder) */
  PauseKeeper(Supplier<PauseRules> pauses, int perProvider, WithoutCall withoutCall,
      LongSupplier nanoTime) {
    this.pauses = pauses;
    this.nanoTime = nanoTime;
    this.withoutCall = withoutCall;
    this.paused = new PausedEntries<>(perProvider, e -> e.event().provider(),
        e -> e.event().tenant(), e -> e.event().deadline());
  }

  /** Whether a pause in force now stops this entry's call. */
  boolean holds(DispatchEntry entry) {
    return pauses.get().holds(entry.event().provider(), entry.event().tenant());
  }

  /**
   * Holds an event a pause covers. Past the provider's share of held events it goes round the
   * ladder's longest step instead, not an attempt, and is looked at again when it comes back.
   */
  void hold(DispatchEntry entry) {
    if (!paused.hold(entry)) {
      withoutCall.pausedBeyondShare(entry);
    } else {
      heldAt.put(entry, nanoTime.getAsLong());
    }
  }

  /**
   * Every turn of the consumer loop: what was queued before a change of the rules is looked at
   * once (new arrivals are held as they are read); held events are sorted only when the rules
   * changed, or once a second ({@link PausedEntries#sort}). Resumed events go to {@code requeue}.
   */
  void apply(Supplier<List<ProviderLane>> lanes, Instant now, Consumer<DispatchEntry> requeue) {
    PauseRules rules = pauses.get();
    if (!rules.equals(applied)) {
      applied = rules;
      for (ProviderLane lane : lanes.get()) {
        if (!rules.concerning(lane.id().provider()).isEmpty()) {
          lane.drop(e -> rules.holds(e.event().provider(), e.event().tenant()))
              .forEach(this::hold);
        }
      }
    }
    PausedEntries.Sorted<DispatchEntry> sorted = paused.sort(rules, now);
    sorted.expired().forEach(e -> withoutCall.dead(e, Reason.EXPIRED,
        "deadline " + e.event().deadline() + " passed while paused"));
    sorted.expired().forEach(heldAt::remove);
    sorted.resumed().forEach(heldAt::remove);
    sorted.resumed().forEach(requeue);
    parkLongHeld();
    heldByPause = paused.heldByProvider();
  }

  /** Parks the events held for longer than {@link #PARK_AFTER_NANOS}. */
  private void parkLongHeld() {
    if (heldAt.isEmpty()) {
      return;
    }
    long now = nanoTime.getAsLong();
    List<DispatchEntry> due = paused.removeIf(e -> now - heldAt.getOrDefault(e, now) >= PARK_AFTER_NANOS);
    for (DispatchEntry e : due) {
      heldAt.remove(e);
      withoutCall.park(e, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS), "paused by an operator "
          + "(provider " + e.event().provider() + ", tenant " + e.event().tenant()
          + "); looked at again when it comes back");
    }
  }

  /** Takes out the held events {@code which} selects (their partition was revoked). */
  List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
    List<DispatchEntry> dropped = paused.removeIf(which);
    dropped.forEach(heldAt::remove);
    return dropped;
  }

  /** Events held by a pause per provider (gauges, any thread). */
  Map<String, Integer> heldByProvider() {
    return heldByPause;
  }
}
