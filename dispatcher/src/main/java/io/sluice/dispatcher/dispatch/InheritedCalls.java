package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.SettlementGrace;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls a partition's previous owner delivered whose settlement the {@link DeliveredLog} does
 * not record: their records wait, one by one, for that owner's outcome ({@link SettlementGrace}
 * says why and how long). Each turn of the loop ({@link #tick}) settles those the log now says
 * are settled, without a write, writes the outcome of those whose grace is over, and reads the
 * log again for the rest. The log's answers come on Redis's threads and are taken in on the
 * consumer thread, which owns everything else here.
 */
final class InheritedCalls {
  private static final Logger LOG = LoggerFactory.getLogger(InheritedCalls.class);

  /** A record held, with what the log said of its call. */
  private record Waiting(DispatchEntry entry, DeliveredLog.Delivered delivered) {}

  /** The settled offsets the log holds now among a partition's held records. */
  private record Answer(TopicPartition partition, Set<Long> settled) {}

  private final SettlementGrace<Waiting> grace;
  private final DeliveredLog log;
  private final SettlementWriter writer;
  private final Books books;
  private final LongSupplier nanoTime;
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();

  /**
   * @param grace   how long a record waits for its previous owner's outcome
   * @param recheck how often the log is read again meanwhile
   */
  InheritedCalls(DeliveredLog log, SettlementWriter writer, Books books, LongSupplier nanoTime,
      Duration grace, Duration recheck) {
    this.grace = new SettlementGrace<>(grace.toNanos(), recheck.toNanos());
    this.log = log;
    this.writer = writer;
    this.books = books;
    this.nanoTime = nanoTime;
  }

  /** {@code entry}'s call was delivered ({@code delivered}) before this assignment: it waits. */
  void hold(DispatchEntry entry, DeliveredLog.Delivered delivered) {
    grace.hold(entry.partition(), entry.offset(), new Waiting(entry, delivered),
        nanoTime.getAsLong());
  }

  /**
   * Settles the records the log said are settled (the previous owner's outcome was
   * acknowledged: no second one), writes the outcomes whose grace is over, and asks the log again
   * for the partitions due a read.
   */
  void tick() {
    Answer a;
    while ((a = answers.poll()) != null) {
      for (Waiting w : grace.answered(a.partition(), a.settled())) {
        LOG.debug("dispatcher: {}@{} settled by its previous owner's outcome; not written again",
            w.entry().partition(), w.entry().offset());
        books.settled(w.entry());
      }
    }
    long now = nanoTime.getAsLong();
    for (Waiting w : grace.due(now)) {
      LOG.info("dispatcher: {}@{} was delivered by the partition's previous owner, whose outcome "
          + "the delivered log does not show acknowledged after the grace; its outcome is written "
          + "here", w.entry().partition(), w.entry().offset());
      writer.delivered(w.entry(), w.delivered().status(), w.delivered().attempts());
    }
    grace.toRead(now).forEach((tp, range) -> {
      try {
        log.between(tp, range.from(), range.to()).whenComplete((found, error) ->
            answers.add(new Answer(tp, error != null || found == null ? Set.of() : settled(found))));
      } catch (RuntimeException e) {
        answers.add(new Answer(tp, Set.of())); // asked again at the next round
      }
    });
  }

  /** {@code partitions} moved: their held records are let go (their next owner reads them). */
  List<DispatchEntry> forget(Collection<TopicPartition> partitions) {
    return grace.forget(partitions).stream().map(Waiting::entry).toList();
  }

  private static Set<Long> settled(Map<Long, DeliveredLog.Delivered> found) {
    return found.values().stream().filter(DeliveredLog.Delivered::settled)
        .map(DeliveredLog.Delivered::offset).collect(Collectors.toSet());
  }
}
