package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Redis lost its data (a {@code FLUSHALL}, a failover to an empty replica): until the registry is
 * set again from the operator topic (the marker {@code seeded}), a tenant not kept is unknown, not
 * "no record". The outside check saw 80 events of a registry tenant dead-lettered
 * {@code no_endpoint} in the 650 ms between a wipe and the seed.
 */
class TenantWatcherWipeTest {
  private final AtomicReference<TenantRegistry.Changes> changes = new AtomicReference<>(
      new TenantRegistry.Changes(12, 5, true, List.of()));
  private final AtomicReference<Optional<String>> marker = new AtomicReference<>(Optional.of("seeded"));
  private final AtomicLong lookups = new AtomicLong();
  private final AtomicLong nanos = new AtomicLong();
  private final TenantWatcher watcher = new TenantWatcher(
      v -> CompletableFuture.completedFuture(changes.get()),
      t -> {
        lookups.incrementAndGet();
        return CompletableFuture.completedFuture(new TenantRegistry.Read(changes.get().version(),
            Optional.empty()));
      }, () -> CompletableFuture.completedFuture(marker.get()), 10, nanos::get);

  @Test
  void shouldAnswerUnknownAfterAWipeUntilTheRegistryIsSeededAgain() {
    watcher.poll().toCompletableFuture().join();

    // FLUSHALL: the version is gone (0), the registry empty, no marker.
    changes.set(new TenantRegistry.Changes(0, 0, true, List.of()));
    marker.set(Optional.empty());
    watcher.poll().toCompletableFuture().join();
    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("t97"),
        "wiped, not seeded again: unknown (the dispatcher defers, the gate decides by the file)");

    // The CacheKeeper seeds it again: five records restored, the marker seeded.
    changes.set(new TenantRegistry.Changes(5, 5, true, List.of()));
    marker.set(Optional.of("seeded"));
    watcher.poll().toCompletableFuture().join();
    assertEquals(TenantLookup.Answer.of(null), watcher.answer("nobody"),
        "whole again: a tenant without a record is one");
    watcher.close();
  }

  @Test
  void shouldNotTakeAnAbsentRecordReadFromAWipedRegistryBeforeThePollSawTheWipe() {
    watcher.poll().toCompletableFuture().join();
    changes.set(new TenantRegistry.Changes(0, 0, true, List.of())); // the poll has not run yet

    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("t97"),
        "a version older than the one applied: a wipe, not an answer");
    assertEquals(1, lookups.get());
    watcher.close();
  }

  @Test
  void shouldGiveUpWaitingForASeedThatNeverComes() {
    watcher.poll().toCompletableFuture().join();
    changes.set(new TenantRegistry.Changes(0, 0, true, List.of()));
    marker.set(Optional.empty());
    watcher.poll().toCompletableFuture().join();
    nanos.addAndGet(TenantWatcher.REBUILD_PATIENCE.toNanos() + 1);
    watcher.poll().toCompletableFuture().join();

    assertEquals(TenantLookup.Answer.of(null), watcher.answer("nobody"),
        "no role seeds it (none runs a CacheKeeper): after the patience, absent is absent");
    watcher.close();
  }
}
