package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OffsetCommits;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.schemas.event.WorkEvent;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A settlement Kafka acknowledged reaches the delivered log on its own, whatever the consumer
 * thread is doing: a dispatcher fenced after a broker restart spends seconds inside {@code poll}
 * rejoining, and meanwhile another instance takes its partitions and reads the log. The chaos run
 * saw such an instance write the outcome of a call the first had delivered and settled 15 s
 * before (an event ended twice).
 */
class BooksTest {
  private static final TopicPartition READY = new TopicPartition("t.ready", 0);
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  /** Every write to the delivered log: partition, entries. */
  private final List<Map.Entry<TopicPartition, List<DeliveredLog.Delivered>>> written =
      new CopyOnWriteArrayList<>();
  private final DeliveredLog log = new DeliveredLog() {
    @Override
    public CompletionStage<Void> record(TopicPartition p, long keepFrom,
        List<DeliveredLog.Delivered> delivered) {
      written.add(Map.entry(p, List.copyOf(delivered)));
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Map<Long, DeliveredLog.Delivered>> since(TopicPartition p, long from) {
      return CompletableFuture.completedFuture(Map.of());
    }
  };

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  @Test
  void shouldLogASettlementAcknowledgedWhileTheConsumerThreadIsBusyElsewhere() {
    OwnedPartitions owned = new OwnedPartitions();
    Books books = new Books(owned, new OffsetCommits(new MockConsumer<>("earliest"), owned,
        Clock.systemUTC(), 1000), new ReadBudget(Set.of("api"), 100, 1_000_000), log, timer,
        Clock.systemUTC());

    books.settled(new DispatchEntry(READY, 42, 1, "k".getBytes(UTF_8), new byte[1],
        new RecordHeaders(), new WorkEvent("e", "t", "api", 1, null, null, null, null), "std", 0,
        null)); // on a producer thread, as Kafka's acknowledgement; apply() never runs

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (written.stream().noneMatch(w -> w.getKey().equals(READY)
        && w.getValue().contains(DeliveredLog.Delivered.settledAt(42)))) {
      assertTrue(System.nanoTime() - deadline < 0, "not in the log within 5 s: " + written);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // the timer writes apart
    }
  }
}
