package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A look-up that fails is "unknown", not "no record": a dispatcher must not mistake a slow Redis
 * for a tenant without a registry endpoint (it would dead-letter its events, or call the file's
 * URL the registry replaced).
 */
class TenantWatcherAnswerTest {
  private static final TenantRecord PRO = new TenantRecord("pro", Map.of(), false);
  /** What the next look-up answers. */
  private final AtomicReference<CompletionStage<TenantRegistry.Read>> next = new AtomicReference<>();
  private final TenantWatcher watcher = new TenantWatcher(
      v -> CompletableFuture.completedFuture(new TenantRegistry.Changes(5, 1, false, List.of())),
      t -> next.get(), 10, System::nanoTime);

  @Test
  void shouldAnswerUnknownWhenTheLookUpTimesOutOrFailsAndTheRecordOnceItIsRead() {
    watcher.poll().toCompletableFuture().join();

    next.set(new CompletableFuture<>());
    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("acme"), "no answer within 200 ms");
    next.set(CompletableFuture.failedFuture(new IllegalStateException("connection reset")));
    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("acme"), "a failed look-up");
    assertNull(watcher.registered("acme"), "the gate's view: the file decides it");
    next.set(null);
    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("acme"),
        "Redis counted as down: not even asked");

    watcher.poll().toCompletableFuture().join();

    next.set(CompletableFuture.completedFuture(new TenantRegistry.Read(5, Optional.of(
        new StoredTenant("acme", PRO, "ana@ops", java.time.Instant.EPOCH)))));
    assertEquals(TenantLookup.Answer.of(PRO), watcher.answer("acme"));
    next.set(null);
    assertEquals(TenantLookup.Answer.of(PRO), watcher.answer("acme"), "kept: no look-up");
    watcher.close();
  }

  @Test
  void shouldAnswerNoRecordWhenTheRegistryHasNone() {
    watcher.poll().toCompletableFuture().join();
    next.set(CompletableFuture.completedFuture(new TenantRegistry.Read(5, Optional.empty())));

    assertEquals(TenantLookup.Answer.of(null), watcher.answer("globex"));
    watcher.close();
  }

  @Test
  void shouldKeepNothingForTenantsOfAnEmptyRegistry() {
    TenantWatcher empty = new TenantWatcher(
        v -> CompletableFuture.completedFuture(new TenantRegistry.Changes(5, 0, false, List.of())),
        t -> {
          throw new AssertionError("an empty registry is not asked about " + t);
        }, 100, System::nanoTime);
    empty.poll().toCompletableFuture().join();

    for (int i = 0; i < 1_000; i++) {
      assertEquals(TenantLookup.Answer.of(null), empty.answer("t" + i));
    }

    assertEquals(0, empty.cache().size(), "no absence kept: nothing to sweep");
    empty.close();
  }

  @Test
  void shouldKeepAnAnswerThatCameAfterTheWaitSoTheNextEventNeitherAsksNorWaits() {
    watcher.poll().toCompletableFuture().join();
    CompletableFuture<TenantRegistry.Read> slow = new CompletableFuture<>();
    next.set(slow);

    assertEquals(TenantLookup.Answer.unknown(), watcher.answer("acme"), "no answer within 200 ms");
    slow.complete(new TenantRegistry.Read(5, Optional.of(
        new StoredTenant("acme", PRO, "ana@ops", java.time.Instant.EPOCH))));
    next.set(null);

    assertEquals(TenantLookup.Answer.of(PRO), watcher.answer("acme"), "kept when it came");
    watcher.close();
  }
}
