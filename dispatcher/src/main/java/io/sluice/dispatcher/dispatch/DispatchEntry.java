package io.sluice.dispatcher.dispatch;

import io.sluice.schemas.event.WorkEvent;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;

/**
 * One event read from {@code sluice.ready}, from the moment it is read until it is settled.
 *
 * @param partition  where it was read; its offset is committed only once this entry is settled
 * @param offset     its offset there
 * @param generation the assignment of {@code partition} it was read under; a settlement from an
 *                   older assignment (the partition was revoked and came back) is ignored
 * @param key        the record key as read (the tenant id), passed on unchanged
 * @param value      the record value as read (the WorkEvent JSON), passed on unchanged
 * @param headers    the record headers as read (a private copy)
 * @param event      the parsed value
 * @param tier       the tier the gate resolved, the fair queue's flow
 * @param attempts   provider failures so far ({@code sluice-attempt})
 * @param firstSeen  epoch ms when Sluice first saw the event ({@code sluice-first-seen}), or null
 * @param readyAt    the ready record's timestamp (epoch ms: when the gate admitted it or the relay
 *                   released it), where its wait in the dispatcher begins; -1 when unknown
 */
public record DispatchEntry(
    TopicPartition partition,
    long offset,
    long generation,
    byte[] key,
    byte[] value,
    Headers headers,
    WorkEvent event,
    String tier,
    int attempts,
    Long firstSeen,
    long readyAt) {

  /** An entry whose ready time is unknown. */
  public DispatchEntry(TopicPartition partition, long offset, long generation, byte[] key,
      byte[] value, Headers headers, WorkEvent event, String tier, int attempts, Long firstSeen) {
    this(partition, offset, generation, key, value, headers, event, tier, attempts, firstSeen, -1);
  }

  /** {@code topic-partition@offset}, as dead letters name their source. */
  public String source() {
    return partition.topic() + "-" + partition.partition() + "@" + offset;
  }
}
