package io.sluice.dispatcher.dispatch.lane;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.Priority;
import io.sluice.schemas.event.WorkEvent;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Entries for the lane's parts: only what a part reads is named, the rest is fixed. */
final class LaneEntries {
  private LaneEntries() {}

  /** Event {@code id} of tenant {@code t}, tier {@code std}, costing {@code cost}, read from ready-0. */
  static DispatchEntry entry(String id, int cost) {
    return entry(id, "t", cost);
  }

  /** Event {@code id} of {@code tenant}, tier {@code std}, costing {@code cost}, read from ready-0. */
  static DispatchEntry entry(String id, String tenant, int cost) {
    return entry(id, tenant, cost, null);
  }

  /** As {@link #entry(String, String, int)}, of class {@code priority} (null: none named). */
  static DispatchEntry entry(String id, String tenant, int cost, Priority priority) {
    return new DispatchEntry(new TopicPartition("ready", 0), 0, 1, tenant.getBytes(UTF_8),
        "{}".getBytes(UTF_8), new RecordHeaders(),
        new WorkEvent(id, tenant, "api", cost, null, null, null, Map.of(), null, null, priority),
        "std", 0, null);
  }
}
