package io.sluice.app.dlq;

import io.sluice.config.KafkaConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code dlq list} and {@code dlq replay} against a cluster: the wiring of {@link BoundedScan},
 * {@link ReplayLedger}, {@link ReplaySelection} and {@link Replayer}. Reads with
 * {@code read_committed}, in no consumer group.
 */
public final class DlqOperations {
  /** What {@code list} found: at most the query's limit, in the order read. */
  public record Listing(List<DeadLetterRow> rows, long read, boolean timedOut) {}

  /**
   * What {@code replay} sent (or, dry, would send).
   *
   * @param sent     the dead letters sent (dry run: that would be sent), in the order read
   * @param skipped  matching dead letters not sent, by why
   * @param full     the limit or the byte budget stopped the selection: there may be more
   * @param timedOut reading the dead-letter topic was cut short: there may be more
   */
  public record ReplayReport(List<DeadLetterRow> sent, Map<ReplaySelection.Verdict, Long> skipped,
      long read, boolean full, boolean timedOut, boolean dryRun) {}

  private DlqOperations() {}

  public static Listing list(KafkaConfig kafka, Topics topics, DeadLetterQuery query,
      Instant now, Duration timeout) {
    List<DeadLetterRow> rows = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      BoundedScan.Result r = BoundedScan.read(c, topics.dlq(), query.from(now), timeout, rec -> {
        DeadLetterEntry e = DeadLetterEntry.of(rec);
        if (query.matches(e)) {
          rows.add(DeadLetterRow.of(e));
        }
        return rows.size() < query.limit();
      });
      return new Listing(rows, r.read(), r.timedOut());
    }
  }

  /**
   * Replays the dead letters {@code query} selects, or with {@code dryRun} only says which. Not
   * dry: fences any earlier run first, then reads the ledger, then the dead letters, then sends.
   */
  public static ReplayReport replay(KafkaConfig kafka, Topics topics, DeadLetterQuery query,
      Instant now, Duration timeout, boolean dryRun) {
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka);
        Replayer replayer = dryRun ? null : new Replayer(kafka, topics)) {
      if (replayer != null) {
        replayer.fence();
      }
      ReplayedEvents replayed = ReplayLedger.read(c, topics.replays(), timeout);
      ReplaySelection selection = new ReplaySelection(query, replayed, now);
      BoundedScan.Result r = BoundedScan.read(c, topics.dlq(), query.from(now), timeout,
          rec -> selection.offer(DeadLetterEntry.of(rec)));
      selection.delivered(delivered(c, topics, selection, timeout));
      if (replayer != null) {
        replayer.replay(selection.toSend(), selection.deliveredLetters(), now,
            UUID.randomUUID().toString());
      }
      return new ReplayReport(selection.toSend().stream().map(DeadLetterRow::of).toList(),
          selection.skipped(), r.read(), selection.full(), r.timedOut(), dryRun);
    }
  }

  /**
   * Which of the selected events {@code sluice.outcomes} shows delivered: read from the earliest
   * first-seen of the selection ({@link #CLOCK_SKEW} earlier) to the topic's end, headers only.
   * A read cut short sends nothing: an event delivered and replayed would be called again.
   */
  private static Set<String> delivered(KafkaConsumer<byte[], byte[]> c, Topics topics,
      ReplaySelection selection, Duration timeout) {
    Set<String> wanted = selection.eventIds();
    Optional<Instant> from = selection.outcomesFrom(CLOCK_SKEW);
    if (wanted.isEmpty() || from.isEmpty()) {
      return Set.of();
    }
    Set<String> found = new HashSet<>();
    BoundedScan.Result r = BoundedScan.read(c, topics.outcomes(), from, timeout, rec -> {
      HeaderValues.last(rec.headers(), HeaderNames.EVENT_ID).filter(wanted::contains)
          .ifPresent(found::add);
      return true;
    });
    if (r.timedOut()) {
      throw new IllegalStateException("could not read " + topics.outcomes() + " to its end within "
          + timeout.toSeconds() + " s; nothing was replayed (narrow the replay with --since)");
    }
    return found;
  }

  /** How far the gate's clock (first-seen) may be ahead of a dispatcher's (an outcome's time). */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

  private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka) {
    return new KafkaConsumer<>(kafka.clientProperties(Map.of(
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-dlq-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
