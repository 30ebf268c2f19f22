package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OffsetCommits;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.schemas.event.WorkEvent;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
  private static final DeliveredLog.Delivered CALL_42 = new DeliveredLog.Delivered(42, 200, 1);
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
    Books books = books();

    books.settled(entry(42)); // on a producer thread, as Kafka's acknowledgement; apply() never runs

    awaitLogged(DeliveredLog.Delivered.settledAt(42));
  }

  /**
   * A call whose outcome Kafka acknowledges within a round never shows in the log as delivered
   * and not settled: killed in between, this owner would leave its next owner waiting for an
   * outcome already written and then writing a second one (issue 34).
   */
  @Test
  void shouldNeverLogACallDeliveredWithoutItsSettlementWhenItsOutcomeIsAcknowledgedWithinARound() {
    long now = System.currentTimeMillis();
    Books books = calledAt(now);
    books.settled(entry(42)); // the outcome acknowledged

    books.commitIfDue(now + Books.COMMIT_EVERY_MILLIS);
    awaitLogged(DeliveredLog.Delivered.settledAt(42));
    books.commitIfDue(now + 3 * Books.COMMIT_EVERY_MILLIS);

    List<DeliveredLog.Delivered> order = written.stream().flatMap(w -> w.getValue().stream())
        .filter(d -> d.offset() == 42).toList();
    assertEquals(DeliveredLog.Delivered.settledAt(42), order.get(0),
        "settled first (the delivered mark after it, if at all, says nothing more): " + order);
  }

  /**
   * A settlement acknowledged is in the log at once, not at the timer's next round: SIGKILLed in
   * between, this owner left its next one nothing saying the record was settled, and the record
   * was called again (the chaos run: calls answered just before a dispatcher's SIGKILL).
   */
  @Test
  void shouldLogASettlementAsSoonAsKafkaAcknowledgesIt() {
    StepTimer steps = new StepTimer();
    Books books = books(steps, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));

    books.settled(entry(42));
    steps.runDue(0); // no time passes: no round comes

    assertEquals(List.of(Map.entry(READY, List.of(DeliveredLog.Delivered.settledAt(42)))), written);
  }

  /**
   * Acknowledgements in a burst share a write: the log costs at most one write per partition every
   * {@link Books#SETTLED_MARKS_EVERY_MILLIS}, never one per event.
   */
  @Test
  void shouldWriteTheSettlementsAcknowledgedTogetherInOneWriteAtMostEverySpacing() {
    StepTimer steps = new StepTimer();
    MutableClock clock = new MutableClock();
    Books books = books(steps, clock);
    books.settled(entry(42));
    steps.runDue(clock.millis());

    books.settled(entry(43)); // within the spacing of the last write
    books.settled(entry(44));
    steps.runDue(clock.millis());
    assertEquals(1, written.size(), "not yet: " + written);

    clock.advance(Books.SETTLED_MARKS_EVERY_MILLIS);
    steps.runDue(clock.millis());
    assertEquals(List.of(DeliveredLog.Delivered.settledAt(43), DeliveredLog.Delivered.settledAt(44)),
        written.get(1).getValue(), "one write for both: " + written);
    assertEquals(2, written.size(), "" + written);
  }

  /**
   * A call whose settled mark went to the log at once is not logged delivered at its round: the
   * log would hold two entries of it, and reach its bound ({@code RedisDeliveredLog.MAX_ENTRIES})
   * twice as soon while a held record keeps the commit back.
   */
  @Test
  void shouldNotLogACallDeliveredWhoseSettledMarkIsWrittenAlready() {
    StepTimer steps = new StepTimer();
    MutableClock clock = new MutableClock();
    Books books = books(steps, clock);
    books.deliveries().add(READY, CALL_42, clock.millis());
    clock.advance(5);
    books.settled(entry(42)); // the outcome acknowledged 5 ms after the call
    steps.runDue(clock.millis());

    clock.advance(Books.COMMIT_EVERY_MILLIS);
    books.commitIfDue(clock.millis()); // the call's round

    assertEquals(List.of(Map.entry(READY, List.of(DeliveredLog.Delivered.settledAt(42)))), written);
  }

  /** A call whose outcome is not acknowledged after a round (the broker away) is logged delivered. */
  @Test
  void shouldLogACallDeliveredOnceItsOutcomeIsUnacknowledgedForARound() {
    long now = System.currentTimeMillis();
    Books books = calledAt(now);
    assertEquals(List.of(), written, "not a round old");

    books.commitIfDue(now + Books.COMMIT_EVERY_MILLIS);
    assertEquals(List.of(Map.entry(READY, List.of(CALL_42))), written,
        "its next owner does not call it again");
  }

  /**
   * Books in which the record at 42 was delivered at {@code now}, and the consumer thread's round
   * came 1 ms later (the call not a round old then).
   */
  private Books calledAt(long now) {
    Books books = books();
    books.deliveries().add(READY, CALL_42, now);
    books.commitIfDue(now + 1);
    return books;
  }

  private Books books() {
    return books(timer, Clock.systemUTC());
  }

  private Books books(ScheduledExecutorService timer, Clock clock) {
    OwnedPartitions owned = new OwnedPartitions();
    return new Books(owned, new OffsetCommits(new MockConsumer<>("earliest"), owned,
        clock, 1000), new ReadBudget(Set.of("api"), 100, 1_000_000), log, timer, clock);
  }

  /** A clock the test moves, in milliseconds. */
  private static final class MutableClock extends Clock {
    private volatile long millis;

    void advance(long by) {
      millis += by;
    }

    @Override
    public long millis() {
      return millis;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }

  /**
   * A timer whose one-shot tasks run on the test's thread when the test says their time has come
   * ({@link #runDue}); periodic tasks are kept and never run, as if no round ever came.
   */
  private static final class StepTimer extends ScheduledThreadPoolExecutor {
    private record Due(long atMillis, Runnable task) {}

    private final List<Due> due = new ArrayList<>();
    private long nowMillis;

    StepTimer() {
      super(0);
    }

    /** Runs, in order, the tasks due by {@code millis}, those they queue included. */
    void runDue(long millis) {
      nowMillis = millis;
      Due next;
      while ((next = due.stream().filter(d -> d.atMillis() <= millis).findFirst().orElse(null))
          != null) {
        due.remove(next);
        next.task().run();
      }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      due.add(new Due(nowMillis + unit.toMillis(delay), command));
      return null;
    }

    @Override
    public void execute(Runnable command) {
      schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay,
        long delay, TimeUnit unit) {
      return null; // no round comes
    }
  }

  private static DispatchEntry entry(long offset) {
    return new DispatchEntry(READY, offset, 1, "k".getBytes(UTF_8), new byte[1],
        new RecordHeaders(), new WorkEvent("e", "t", "api", 1, null, null, null, null), "std", 0,
        null);
  }

  /** Waits, at most 5 s, for the timer to write {@code mark} to the log. */
  private void awaitLogged(DeliveredLog.Delivered mark) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (written.stream().noneMatch(w -> w.getKey().equals(READY)
        && w.getValue().contains(mark))) {
      assertTrue(System.nanoTime() - deadline < 0, "not in the log within 5 s: " + written);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // the timer writes apart
    }
  }
}
