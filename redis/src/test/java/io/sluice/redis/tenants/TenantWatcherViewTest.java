package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a gate's watcher says of the registry it follows (for /health and /metrics). */
class TenantWatcherViewTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicBoolean answers = new AtomicBoolean(true);
  private final TenantWatcher watcher = new TenantWatcher(
      v -> answers.get()
          ? CompletableFuture.completedFuture(new TenantRegistry.Changes(17, 3, false, List.of()))
          : CompletableFuture.failedFuture(new IllegalStateException("no answer")),
      t -> CompletableFuture.completedFuture(new TenantRegistry.Read(17, Optional.empty())),
      10, nanos::get);

  @Test
  void shouldBeStaleAndNeverReadBeforeTheFirstPoll() {
    assertEquals(new TenantWatcher.View(true, Optional.empty(), -1, 0), watcher.view());
    watcher.close();
  }

  @Test
  void shouldSayHowLongAgoTheRegistryWasLastReadAndBecomeStaleAfterFiveSeconds() {
    watcher.poll().toCompletableFuture().join();
    watcher.registered("acme");
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    assertEquals(new TenantWatcher.View(false, Optional.of(Duration.ofSeconds(2)), 17, 1),
        watcher.view());

    answers.set(false);
    watcher.poll().toCompletableFuture().join();
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());
    assertEquals(new TenantWatcher.View(true, Optional.of(Duration.ofSeconds(6)), 17, 1),
        watcher.view(), "what is kept stays in force, however old");
    watcher.close();
  }
}
