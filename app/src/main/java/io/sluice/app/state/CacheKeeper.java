package io.sluice.app.state;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.operator.CacheRepair;
import io.sluice.redis.operator.CacheRepair.Action;
import io.sluice.redis.operator.OperatorEntry;
import io.sluice.redis.operator.OperatorEntry.Key;
import io.sluice.redis.operator.OperatorEntry.Kind;
import io.sluice.redis.operator.OperatorLog;
import io.sluice.redis.tenants.TenantRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Redis's cache of the operators' state (the pauses' hash, the tenant registry) equal to
 * the operator topic, in every process that runs a role: every {@link #CHECK} it reads each
 * keyspace's marker and does what {@link CacheRepair} decides:
 * <ul>
 *   <li>the marker gone (Redis lost its data: {@code FLUSHALL}, a restart without persistence, a
 *       failover to an empty replica): seeds the keyspace again from the topic, then marks it,
 *       so that within {@link #CHECK} and a seed of a loss every pause and tenant record is in
 *       Redis again, with no operator's action;</li>
 *   <li>the marker there: writes to Redis the keys the topic changed since the last round, so a
 *       writer that stopped between its Kafka write and its Redis write (or a write made while
 *       Redis was down, which the topic took) still reaches the cache.</li>
 * </ul>
 * Several processes keep the same cache: their writes are the same values, the pauses are seeded
 * in one script, and a tenants' seed in progress by another is left to finish
 * ({@link CacheRepair#SEEDING_PATIENCE}). What the dispatchers honour meanwhile does not wait for
 * this: they read the topic's pauses themselves ({@code PauseWatcher}).
 */
public final class CacheKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CacheKeeper.class);
  /** How often the markers are read: a loss is repaired within this and a seed. */
  public static final Duration CHECK = Duration.ofMillis(500);
  /** Longest one Redis call of a round is waited for. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  /** Tenant records written at once during a seed (pipelined). */
  static final int SEED_BATCH = 500;

  private final OperatorLog log;
  private final PauseStore pauses;
  private final TenantRegistry tenants;
  private final LongSupplier clock;
  private final String token = UUID.randomUUID().toString().substring(0, 8);
  /** Keys the topic changed that the cache has not been given yet. */
  private final Set<Key> pending = new LinkedHashSet<>();
  private final AutoCloseable owned;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sluice-cache-keeper");
    t.setDaemon(true);
    return t;
  });
  private Action lastPauses;
  private Action lastTenants;

  CacheKeeper(OperatorLog log, PauseStore pauses, TenantRegistry tenants, LongSupplier clock,
      AutoCloseable owned) {
    this.log = log;
    this.pauses = pauses;
    this.tenants = tenants;
    this.clock = clock;
    this.owned = owned;
  }

  /** Starts keeping {@code config}'s Redis, reading its operator topic. */
  public static CacheKeeper start(SluiceConfig config) {
    RedisAccess redis = RedisAccess.open(config.redis(), "operator-state");
    OperatorLog log = OperatorLog.follow(config);
    CacheKeeper keeper = new CacheKeeper(log, new PauseStore(redis.commands()),
        new TenantRegistry(redis.commands()), System::currentTimeMillis, () -> {
          log.close();
          redis.close();
        });
    keeper.timer.scheduleWithFixedDelay(keeper::roundSafely, 0, CHECK.toMillis(),
        TimeUnit.MILLISECONDS);
    return keeper;
  }

  private void roundSafely() {
    try {
      round();
    } catch (RuntimeException e) {
      LOG.warn("operator state: keeping Redis's cache failed this round ({})", e.toString());
    }
  }

  /** One round: both keyspaces, each as {@link CacheRepair} decides. */
  void round() {
    pending.addAll(log.view().drainChanged());
    Action p = CacheRepair.decide(log.read(), marker(pauses.marker()),
        clock.getAsLong());
    said(p, lastPauses, "pauses");
    lastPauses = p;
    if (p == Action.SEED) {
      Map<String, Optional<String>> all = new LinkedHashMap<>();
      log.view().all(Kind.PAUSE).forEach(e -> all.put(e.id(), Optional.of(e.cached())));
      await(pauses.restore(all, Optional.of(CacheRepair.SEEDED)));
      LOG.warn("operator state: Redis had lost the pauses; {} set again from the operator topic",
          all.size());
      pending.removeIf(k -> k.kind() == Kind.PAUSE);
    } else if (p == Action.FOLLOW) {
      Map<String, Optional<String>> changed = new LinkedHashMap<>();
      pending.stream().filter(k -> k.kind() == Kind.PAUSE)
          .forEach(k -> changed.put(k.id(), log.view().get(k).map(OperatorEntry::cached)));
      if (!changed.isEmpty() && await(pauses.restore(changed, Optional.empty())).isPresent()) {
        pending.removeIf(k -> k.kind() == Kind.PAUSE);
      }
    }
    Action t = CacheRepair.decide(log.read(), marker(tenants.marker()),
        clock.getAsLong());
    said(t, lastTenants, "tenant records");
    lastTenants = t;
    if (t == Action.SEED) {
      seedTenants();
    } else if (t == Action.FOLLOW) {
      List<Key> changed = pending.stream().filter(k -> k.kind() == Kind.TENANT).toList();
      if (restoreTenants(changed.stream().map(k -> Map.entry(k.id(),
          log.view().get(k).map(OperatorEntry::cached))).toList())) {
        changed.forEach(pending::remove);
      }
    }
  }

  /**
   * Marks the registry as being seeded by this process, sets every record, then marks it seeded
   * only if the marker is still this seed's: a loss meanwhile took the marker, and the next round
   * seeds again.
   */
  private void seedTenants() {
    String seeding = CacheRepair.seeding(token, clock.getAsLong());
    if (await(tenants.mark(seeding, Optional.empty())).isEmpty()) {
      return;
    }
    pending.removeIf(k -> k.kind() == Kind.TENANT);
    List<OperatorEntry> all = log.view().all(Kind.TENANT);
    boolean written = restoreTenants(all.stream()
        .map(e -> Map.entry(e.id(), Optional.of(e.cached()))).toList());
    if (written && await(tenants.mark(CacheRepair.SEEDED, Optional.of(seeding))).orElse(false)) {
      LOG.warn("operator state: Redis had lost the tenant registry; {} records set again from the "
          + "operator topic", all.size());
    }
  }

  /** Sets each id's cached value, {@value #SEED_BATCH} at a time; true when all were written. */
  private boolean restoreTenants(List<Map.Entry<String, Optional<String>>> values) {
    for (int from = 0; from < values.size(); from += SEED_BATCH) {
      List<CompletableFuture<Boolean>> batch = new ArrayList<>();
      for (Map.Entry<String, Optional<String>> v
          : values.subList(from, Math.min(values.size(), from + SEED_BATCH))) {
        batch.add(tenants.restore(v.getKey(), v.getValue()).toCompletableFuture());
      }
      if (await(CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
          .thenApply(all -> true)).isEmpty()) {
        return false;
      }
    }
    return true;
  }

  private static void said(Action now, Action before, String what) {
    if (now == before) {
      return;
    }
    switch (now) {
      case WAIT_FOR_REDIS -> LOG.warn("operator state: Redis does not answer; the {} are "
          + "written to its cache once it does", what);
      case WAIT_FOR_LOG -> LOG.info("operator state: reading the operator topic before the {} "
          + "are checked in Redis", what);
      case WAIT_FOR_SEEDER -> LOG.info("operator state: another process is seeding the {}", what);
      default -> {
      }
    }
  }

  /** The answer (not null), or empty when Redis failed or did not answer within {@link #CALL_TIMEOUT}. */
  private static <T> Optional<T> await(CompletionStage<T> call) {
    try {
      return Optional.of(call.toCompletableFuture().get(CALL_TIMEOUT.toMillis(),
          TimeUnit.MILLISECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** The keyspace's marker as {@link CacheRepair} reads it; empty when Redis did not answer. */
  private static Optional<CacheRepair.Marker> marker(CompletionStage<Optional<String>> read) {
    return await(read).map(m -> CacheRepair.marker(m.orElse(null)));
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      owned.close();
    } catch (Exception e) {
      LOG.warn("operator state: closing the keeper failed", e);
    }
  }
}
