package io.sluice.dispatcher.pause;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What a dispatcher honours of the operator topic's pauses and Redis's cache of them: the topic's
 * whatever Redis answers (wiped, down, not yet read), Redis's beside them. Each Redis read is a
 * future the test answers, so each step happens at a read the watcher made, with no sleep.
 */
class PauseWatcherDurableTest {
  private static final Pause PAUSE = new Pause(PauseScope.provider("payments-api"), "ana@ops-1",
      Instant.EPOCH, "INC-4711");

  private final BlockingQueue<CompletableFuture<PauseRules>> reads = new LinkedBlockingQueue<>();
  private final AtomicReference<PauseRules> topic = new AtomicReference<>(PauseRules.of(List.of(PAUSE)));

  private PauseWatcher start() {
    return PauseWatcher.start(() -> {
      CompletableFuture<PauseRules> read = new CompletableFuture<>();
      reads.add(read);
      return read;
    }, topic::get, () -> {});
  }

  /**
   * Answers the watcher's next read with {@code rules} (or fails it when null), and returns once
   * the watcher asked for the read after it: it asks only once the answer is in force.
   */
  private void nextRead(PauseRules rules) throws InterruptedException {
    CompletableFuture<PauseRules> read = reads.poll(5, TimeUnit.SECONDS);
    if (rules == null) {
      read.completeExceptionally(new IllegalStateException("Redis down"));
    } else {
      read.complete(rules);
    }
    reads.add(reads.poll(5, TimeUnit.SECONDS));
  }

  private boolean holds(PauseWatcher watcher) {
    return watcher.current().holds("payments-api", "acme");
  }

  @Test
  void shouldHoldTheTopicsPauseFromTheStartWhileRedisIsDown() throws Exception {
    try (PauseWatcher watcher = start()) {
      assertTrue(holds(watcher), "before Redis ever answered");
      nextRead(null);
      assertTrue(holds(watcher), "Redis does not answer");
    }
  }

  @Test
  void shouldKeepThePauseWhenRedisLosesItsData() throws Exception {
    try (PauseWatcher watcher = start()) {
      nextRead(PauseRules.of(List.of(PAUSE)));
      assertTrue(holds(watcher));
      nextRead(PauseRules.NONE); // FLUSHALL, or a failover to an empty replica
      assertTrue(holds(watcher), "a wiped cache lifts nothing the topic holds");
      nextRead(PauseRules.NONE);
      assertTrue(holds(watcher));
    }
  }

  @Test
  void shouldLiftOnceTheResumeHasReachedBothTheTopicAndRedis() throws Exception {
    try (PauseWatcher watcher = start()) {
      nextRead(PauseRules.of(List.of(PAUSE)));
      topic.set(PauseRules.NONE); // the resume, written to the topic first
      nextRead(PauseRules.of(List.of(PAUSE)));
      assertTrue(holds(watcher), "Redis has not had the resume yet");
      nextRead(PauseRules.NONE);
      assertFalse(holds(watcher), "removed from both");
    }
  }

  @Test
  void shouldHonourAPauseWrittenToRedisAloneToo() throws Exception {
    topic.set(PauseRules.NONE);
    try (PauseWatcher watcher = start()) {
      assertFalse(holds(watcher));
      nextRead(PauseRules.of(List.of(PAUSE))); // a tool of before the topic, or the cache first
      assertTrue(holds(watcher));
    }
  }
}
