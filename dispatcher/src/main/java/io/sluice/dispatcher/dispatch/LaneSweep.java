package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.LaneBacklog;
import io.sluice.dispatcher.dispatch.lane.ParkedEntry;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.schemas.event.Reason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Once a second, what waits in each lane is looked at: an entry whose deadline passed leaves as
 * expired (never called after it; a slot firing in between checks too), and the entries of a
 * lane that may not call for longer than {@link #KEEP_NANOS} (a {@code Retry-After}, a disabled
 * endpoint until its probe) are parked in Kafka for their turn after the hold
 * ({@link ProviderLane#trim}). So a lane that cannot drain holds neither its partition's commit
 * nor its share of the records that pause reading: one dead endpoint does not stop its partition.
 *
 * <p>Each lane that parks is logged once a minute at most, with why and how many. The consumer
 * thread owns it.
 */
final class LaneSweep {
  private static final Logger LOG = LoggerFactory.getLogger(LaneSweep.class);
  /**
   * A lane held longer than this parks its queue: 16 s, what {@code ReadBudget.PER_ENDPOINT_LANE}
   * (32 records) is at 2/s, an endpoint lane's share of its partition's records.
   */
  static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(16);
  private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
  /** Lanes logged at most: beyond, parking is counted (the metric) but not logged. */
  private static final int MAX_LOGGED = 10_000;

  private final WithoutCall withoutCall;
  private final LongSupplier nanoTime;
  private final Map<String, Long> loggedAt = new HashMap<>();
  private long lastNanos;
  private boolean swept;
  /** What each provider's events wait for, as of the last sweep (any thread reads it). */
  private volatile Map<String, Waits> waits = Map.of();

  LaneSweep(WithoutCall withoutCall, LongSupplier nanoTime) {
    this.withoutCall = withoutCall;
    this.nanoTime = nanoTime;
  }

  /** What each provider's events wait for, as of the last sweep. */
  Map<String, Waits> waits() {
    return waits;
  }

  /**
   * Sweeps {@code lanes} if a second has passed since the last sweep, and takes what each
   * provider's events wait for ({@link Waits}), {@code heldByPause} among them, and
   * {@code callsWait}: why no call starts now (null while calls go, {@link CallsWait}).
   */
  void sweepIfDue(Supplier<List<ProviderLane>> lanes, Instant now,
      Map<String, Integer> heldByPause, String callsWait) {
    if (due()) {
      List<ProviderLane> all = lanes.get();
      sweep(all, now);
      waits = waits(all, heldByPause, now.toEpochMilli(), callsWait);
    }
  }

  private Map<String, Waits> waits(List<ProviderLane> lanes, Map<String, Integer> heldByPause,
      long nowMillis, String callsWait) {
    Map<String, int[]> counts = new TreeMap<>(); // queued, in flight, lanes held
    Map<String, Long> heldUntil = new HashMap<>();
    Map<String, List<LaneBacklog>> backlogs = new HashMap<>();
    for (ProviderLane lane : lanes) {
      int[] c = counts.computeIfAbsent(lane.id().provider(), p -> new int[3]);
      if (lane.queued() > 0) {
        backlogs.computeIfAbsent(lane.id().provider(), p -> new ArrayList<>()).add(lane.backlog());
      }
      c[0] += lane.queued();
      c[1] += lane.inFlight();
      long held = lane.heldForNanos();
      if (held > 0) {
        c[2]++;
        heldUntil.merge(lane.id().provider(), nowMillis + TimeUnit.NANOSECONDS.toMillis(held),
            Math::max);
      }
    }
    heldByPause.keySet().forEach(p -> counts.computeIfAbsent(p, x -> new int[3]));
    Map<String, ParkedLedger.Parked> parked = withoutCall.ledger().at(nowMillis);
    parked.keySet().forEach(p -> counts.computeIfAbsent(p, x -> new int[3]));
    Map<String, Waits> out = new TreeMap<>();
    counts.forEach((provider, c) -> {
      ParkedLedger.Parked p = parked.get(provider);
      List<LaneBacklog> queued = backlogs.getOrDefault(provider, List.of());
      Backlogs.Tenants tenants = Backlogs.tenants(queued, Backlogs.MAX_TENANTS);
      out.put(provider, new Waits(c[0], c[1], heldByPause.getOrDefault(provider, 0), c[2],
          heldUntil.getOrDefault(provider, 0L), p == null ? Map.of() : p.byReason(),
          p == null ? 0 : p.nextDueMillis(), p == null ? 0 : p.lastDueMillis(),
          Backlogs.tiers(queued), tenants.oldest(), tenants.waiting(), callsWait));
    });
    return Map.copyOf(out);
  }

  /** Whether a second has passed since the last sweep (and the next one starts now). */
  private boolean due() {
    long t = nanoTime.getAsLong();
    if (swept && t - lastNanos < EVERY_NANOS) {
      return false;
    }
    swept = true;
    lastNanos = t;
    return true;
  }

  /** Expires and parks what waits in {@code lanes}. */
  private void sweep(List<ProviderLane> lanes, Instant now) {
    long t = nanoTime.getAsLong();
    for (ProviderLane lane : lanes) {
      lane.drop(e -> pastDeadline(e, now)).forEach(e -> withoutCall.dead(e, Reason.EXPIRED,
          "deadline " + e.event().deadline() + " passed while it waited in lane " + lane.name()));
      List<ParkedEntry> parked = lane.trim(KEEP_NANOS);
      if (parked.isEmpty()) {
        continue;
      }
      long held = lane.heldForNanos();
      String why = "lane " + lane.name() + " may not call for "
          + TimeUnit.NANOSECONDS.toMillis(held) + " ms (its provider's Retry-After, or its "
          + "endpoint disabled until a probe)";
      parked.forEach(p -> withoutCall.park(p.entry(), p.waitNanos(), why));
      logOnce(lane.name(), parked.size(), why, t);
    }
  }

  static boolean pastDeadline(DispatchEntry e, Instant now) {
    Instant deadline = e.event() == null ? null : e.event().deadline();
    return deadline != null && !now.isBefore(deadline);
  }

  private void logOnce(String lane, int count, String why, long t) {
    Long last = loggedAt.get(lane);
    if (last != null && t - last < LOG_EVERY_NANOS) {
      return;
    }
    if (last == null && loggedAt.size() >= MAX_LOGGED) {
      loggedAt.values().removeIf(at -> t - at >= LOG_EVERY_NANOS);
      if (loggedAt.size() >= MAX_LOGGED) {
        return;
      }
    }
    loggedAt.put(lane, t);
    LOG.info("{}: {} events parked in Kafka for their turn: {} (logged once a minute per lane; "
        + "the metric sluice_dispatch_deferred_total{{reason=\"parked\"}} counts them all)", lane,
        count, why);
  }
}
