package io.sluice.redis.tenants;

import io.sluice.redis.operator.CacheRepair;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gate's view of the tenant registry ({@link TenantLookup}): a {@link TenantCache} kept fresh by
 * reading the registry's changes every {@link #POLL}, and filled by looking a tenant up when its
 * first event comes.
 *
 * <p>Costs: one small script per gate per second, whatever the traffic; one look-up per tenant
 * newly seen (or forgotten: changed, or swept out), waited for on the stream thread for at most
 * {@link #LOOKUP_TIMEOUT}; none per event. So a change reaches every gate within a second and the
 * read's time, and the events after that are decided by it. A deployment that never writes the
 * registry pays one poll a second and nothing else (an empty registry is known to be empty).
 *
 * <p>While Redis does not answer, what is kept stays in force, and a tenant not kept is decided by
 * the file (its entry, else the default tier) without waiting; both logged once, and the recovery
 * once. One poll at a time: a poll that has not answered is not stacked on.
 *
 * <p>When Redis loses its data (a {@code FLUSHALL}, a failover to an empty replica: the registry's
 * version goes back), the registry is not whole until a role's {@code CacheKeeper} has set it again
 * from the operator topic (its marker {@code seeded}, within a second or so): meanwhile a tenant
 * not kept is unknown, not "no record" (a dispatcher defers its event, the gate decides it by the
 * file), at most {@link #REBUILD_PATIENCE}. Before, a dispatcher dead-lettered a registry tenant's
 * events {@code no_endpoint} in the moment between a wipe and the seed.
 */
public final class TenantWatcher implements TenantLookup, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TenantWatcher.class);
  /** How often the changes are read. */
  public static final Duration POLL = Duration.ofSeconds(1);
  /** Longest wait for a tenant's look-up on the stream thread. */
  static final Duration LOOKUP_TIMEOUT = Duration.ofMillis(200);
  /** A poll not answered within this is given up. */
  static final Duration POLL_TIMEOUT = Duration.ofSeconds(2);
  /** Tenants kept by default: about 40 MB of heap at the most (measured with one quota each). */
  public static final int DEFAULT_CAPACITY = 100_000;
  /** Most changed ids one poll reads; more, and everything is forgotten. */
  static final int MAX_CHANGES_PER_POLL = 1_000;
  /**
   * Longest a wiped registry is waited for to be seeded again (the operator topic's seed is
   * patient this long with a seeder: {@code CacheRepair.SEEDING_PATIENCE}); past it, with no role
   * seeding (none runs a {@code CacheKeeper}), absent is taken as absent again.
   */
  static final Duration REBUILD_PATIENCE = Duration.ofSeconds(30);

  private final Function<Long, CompletionStage<TenantRegistry.Changes>> changes;
  private final Function<String, CompletionStage<TenantRegistry.Read>> lookUp;
  private final LongSupplier nanoTime;
  /** The registry's marker ({@code TenantRegistry.marker}), read only while it is rebuilt. */
  private final Supplier<CompletionStage<Optional<String>>> marker;
  private final TenantCache cache;
  /** When the registry was found wiped and not yet seeded again; {@code null} when whole. */
  private volatile Long wipedAtNanos;
  private final ScheduledExecutorService timer;
  private boolean polling;

  TenantWatcher(Function<Long, CompletionStage<TenantRegistry.Changes>> changes,
      Function<String, CompletionStage<TenantRegistry.Read>> lookUp, int capacity, LongSupplier nanoTime) {
    this(changes, lookUp, () -> CompletableFuture.completedFuture(Optional.of(CacheRepair.SEEDED)),
        capacity, nanoTime);
  }

  TenantWatcher(Function<Long, CompletionStage<TenantRegistry.Changes>> changes,
      Function<String, CompletionStage<TenantRegistry.Read>> lookUp,
      Supplier<CompletionStage<Optional<String>>> marker, int capacity, LongSupplier nanoTime) {
    this.changes = changes;
    this.marker = marker;
    this.lookUp = lookUp;
    this.nanoTime = nanoTime;
    this.cache = new TenantCache(capacity);
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-tenant-watcher");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts watching {@code registry}: one poll first (waited for, bounded), then every {@link #POLL}. */
  public static TenantWatcher start(TenantRegistry registry, int capacity) {
    TenantWatcher watcher = new TenantWatcher(
        v -> registry.changes(v, MAX_CHANGES_PER_POLL), registry::get, registry::marker, capacity,
        System::nanoTime);
    watcher.poll().toCompletableFuture().exceptionally(e -> null).join();
    watcher.timer.scheduleWithFixedDelay(watcher::poll, POLL.toMillis(), POLL.toMillis(),
        TimeUnit.MILLISECONDS);
    return watcher;
  }

  @Override
  public TenantRecord registered(String tenant) {
    return answer(tenant).record();
  }

  @Override
  public Answer answer(String tenant) {
    TenantCache.Kept kept = cache.cached(tenant);
    if (kept != null) {
      return Answer.of(kept.record());
    }
    if (wipedAtNanos != null) {
      return Answer.unknown(); // not whole yet: "no record" may only mean "not set again yet"
    }
    TenantCache.MissDecision miss = cache.onMiss();
    switch (miss.miss()) {
      case ABSENT -> {
        // Not kept: an empty registry answers "no record" from one volatile read, and keeping
        // the answer per tenant filled the cache with absences at a million tenants, its sweeps
        // costing the stream threads 9.5% of their CPU (issue 38's profile) for nothing.
        return Answer.of(null);
      }
      case UNAVAILABLE -> {
        return Answer.unknown();
      }
      default -> {
        try {
          CompletableFuture<TenantRegistry.Read> asked =
              lookUp.apply(tenant).toCompletableFuture();
          // An answer later than the wait is kept too (store refuses it if a change came since):
          // otherwise every next event of the tenant asks again and waits again, each decided
          // by the file meanwhile, for as long as Redis answers slower than the wait.
          asked.thenAccept(late -> cache.store(tenant,
              late.tenant().map(StoredTenant::record).orElse(null), late.version()));
          TenantRegistry.Read read = asked.get(LOOKUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          if (read.version() < miss.version()) {
            // Older than what the last poll applied: Redis lost its data since (the poll will
            // see it); an absent record now proves nothing.
            return Answer.unknown();
          }
          TenantRecord record = read.tenant().map(StoredTenant::record).orElse(null);
          cache.store(tenant, record, read.version());
          return Answer.of(record);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Answer.unknown();
        } catch (ExecutionException | TimeoutException e) {
          if (!cache.failing() && cache.lookupFailed()) {
            warn(e);
          }
          return Answer.unknown();
        }
      }
    }
  }

  /** The cache, for status and tests. */
  public TenantCache cache() {
    return cache;
  }

  /** True when what is kept may be old: no poll succeeded for {@link TenantCache#STALE_AFTER}. */
  public boolean stale() {
    return cache.stale(nanoTime.getAsLong());
  }

  /**
   * What this watcher holds, for {@code /health}: whether it is {@link #stale}, how long ago the
   * registry's changes were last read (empty: never since start), the version read then, and the
   * tenants kept (in force as read, however old).
   */
  public record View(boolean stale, Optional<Duration> sinceLastRead, long version,
      int kept) {}

  /** The registry as this watcher follows it now. */
  public View view() {
    long now = nanoTime.getAsLong();
    OptionalLong last = cache.lastPollNanos();
    return new View(cache.stale(now), last.isPresent()
        ? Optional.of(Duration.ofNanos(now - last.getAsLong()))
        : Optional.empty(), cache.version(), cache.size());
  }

  CompletionStage<Void> poll() {
    synchronized (this) {
      if (polling) {
        return CompletableFuture.completedFuture(null);
      }
      polling = true;
    }
    CompletableFuture<TenantRegistry.Changes> answer;
    try {
      answer = changes.apply(cache.version()).toCompletableFuture()
          .orTimeout(POLL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    return answer.handle((read, error) -> {
      synchronized (this) {
        polling = false;
      }
      if (error != null) {
        if (!cache.failing()) {
          warn(error);
        }
        cache.failed();
        return null;
      }
      if (cache.failing()) {
        LOG.info("tenants: the registry answers again");
      }
      long before = cache.version();
      cache.apply(read, nanoTime.getAsLong());
      if (read.gap() && before >= 0) {
        LOG.info("tenants: registry at version {}: forgot every kept tenant", read.version());
      }
      if (before >= 0 && read.version() < before && wipedAtNanos == null) {
        wipedAtNanos = nanoTime.getAsLong();
        LOG.warn("tenants: the registry lost its data (version {} after {}); tenants not kept are "
            + "unknown until it is set again from the operator topic", read.version(), before);
      }
      if (wipedAtNanos != null) {
        checkSeeded();
      }
      return null;
    });
  }

  /**
   * Asks whether the wiped registry is whole again (seeded), or waited for long enough. Never
   * waits: the poll's answer arrives on the Redis client's own thread, which a blocking read of
   * the marker would hold (the first outside run waited out the whole patience so).
   */
  private void checkSeeded() {
    CompletableFuture<Optional<String>> read;
    try {
      read = marker.get().toCompletableFuture().orTimeout(POLL_TIMEOUT.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      read = CompletableFuture.failedFuture(e);
    }
    read.whenComplete((m, error) -> seededOrPatient(error == null ? m : Optional.empty()));
  }

  private void seededOrPatient(Optional<String> m) {
    Long wiped = wipedAtNanos;
    if (wiped == null) {
      return;
    }
    if (m.filter(CacheRepair.SEEDED::equals).isPresent()) {
      LOG.info("tenants: the registry is whole again (set again from the operator topic)");
      wipedAtNanos = null;
    } else if (nanoTime.getAsLong() - wiped > REBUILD_PATIENCE.toNanos()) {
      LOG.warn("tenants: the registry was not set again within {} s (no role seeding it); absent "
          + "records are taken as absent", REBUILD_PATIENCE.toSeconds());
      wipedAtNanos = null;
    }
  }

  private static void warn(Throwable error) {
    LOG.warn("tenants: the registry in Redis does not answer ({}); kept records stay in force,"
        + " other tenants are decided by the file", error.toString());
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
