package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetMetadataTooLarge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the owned partitions' settled offsets ({@link OwnedPartitions#committable}): in rounds
 * while running, at once on shutdown and for partitions being revoked. Consumer thread only (the
 * async commits' callbacks run on it too, inside a poll).
 *
 * <p><b>Rounds.</b> A commit goes at most every {@code everyMillis}, and only when something was
 * settled since the last one. A crash calls again what settled since the last commit (its
 * metadata covers everything before it). A failed round is retried with the next one: nothing
 * else would make an idle partition's offsets due again.
 *
 * <p><b>Metadata budget.</b> The longest commit metadata sent starts at the broker's default
 * {@code offset.metadata.max.bytes} and is halved whenever the broker refuses a commit as too
 * large (a broker configured lower), down to nothing: then commits carry no metadata and a crash
 * replays as it did before.
 */
public final class OffsetCommits {
  private static final Logger LOG = LoggerFactory.getLogger(OffsetCommits.class);

  private final Consumer<byte[], byte[]> consumer;
  private final OwnedPartitions owned;
  private final Clock clock;
  private final long everyMillis;
  private int metadataBudget = SettledOffsetsCodec.BROKER_DEFAULT_MAX_BYTES;
  /** Something was settled (or a commit failed) since the last commit sent. */
  private boolean dirty;
  private long lastCommitMillis;

  /** @param everyMillis the least time between two rounds */
  public OffsetCommits(Consumer<byte[], byte[]> consumer, OwnedPartitions owned, Clock clock,
      long everyMillis) {
    this.consumer = consumer;
    this.owned = owned;
    this.clock = clock;
    this.everyMillis = everyMillis;
  }

  /** An offset was settled: the next round commits. */
  public void settled() {
    dirty = true;
  }

  /** The longest metadata a commit carries now, in bytes. */
  int metadataBudget() {
    return metadataBudget;
  }

  /** Commits asynchronously if something was settled and a round has passed since the last. */
  public void commitIfDue() {
    long t = clock.millis();
    if (!dirty || t - lastCommitMillis < everyMillis) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = take(t);
    if (offsets.isEmpty()) {
      return;
    }
    consumer.commitAsync(offsets, (o, error) -> {
      if (error == null) {
        owned.confirmed(o);
      } else if (error instanceof OffsetMetadataTooLarge e) {
        metadataTooLarge(e);
        dirty = true; // commit again soon, with less metadata
      } else {
        dirty = true;
        LOG.warn("dispatcher: commit failed ({}); retrying with the next round", error.toString());
      }
    });
  }

  /**
   * Commits every owned partition now and waits for it (shutdown); a commit refused as too large
   * is sent again with less metadata. Other failures are thrown.
   */
  public void commitNow() {
    Map<TopicPartition, OffsetAndMetadata> offsets = take(clock.millis());
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
      owned.confirmed(offsets);
    } catch (OffsetMetadataTooLarge e) {
      metadataTooLarge(e);
      Map<TopicPartition, OffsetAndMetadata> smaller = committable(owned.partitions());
      consumer.commitSync(smaller);
      owned.confirmed(smaller);
    }
  }

  /**
   * Commits {@code partitions}, about to be revoked, now: their next owner starts from this
   * commit. Refused as too large, it is shrunk and sent again; any failure is logged, not thrown
   * (the next owner then re-reads from the last commit that went through).
   */
  public void commitRevoked(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = committable(partitions);
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (OffsetMetadataTooLarge e) {
      // Shrunk and sent again: the partition's next owner needs this commit most of all.
      metadataTooLarge(e);
      try {
        consumer.commitSync(committable(partitions));
      } catch (RuntimeException again) {
        revokedCommitFailed(again);
      }
    } catch (RuntimeException e) {
      revokedCommitFailed(e);
    }
  }

  private static void revokedCommitFailed(RuntimeException e) {
    LOG.warn("dispatcher: commit on revocation failed ({}); the next owner re-reads", e.toString());
  }

  /** What to commit of every owned partition, starting a round at {@code nowMillis}. */
  private Map<TopicPartition, OffsetAndMetadata> take(long nowMillis) {
    Map<TopicPartition, OffsetAndMetadata> offsets = committable(owned.partitions());
    dirty = false;
    lastCommitMillis = nowMillis;
    return offsets;
  }

  private Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> which) {
    return owned.committable(which, metadataBudget);
  }

  /** The broker keeps less metadata than we sent: send half as much from now on. */
  private void metadataTooLarge(OffsetMetadataTooLarge e) {
    metadataBudget /= 2;
    LOG.warn("dispatcher: the broker refused a commit's metadata as too large ({}); settled "
        + "offsets beyond the commit are now recorded in at most {} bytes (offset.metadata.max.bytes "
        + "on the broker is below the default)", e.getMessage(), metadataBudget);
  }
}
