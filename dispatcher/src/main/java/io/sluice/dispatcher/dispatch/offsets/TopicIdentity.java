package io.sluice.dispatcher.dispatch.offsets;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which incarnation of a topic a partition's records come from: the Kafka cluster's id and the
 * topic's id. A topic deleted and created again under the same name, or the same name on another
 * cluster (a failover to a mirror, a second deployment sharing one Redis), has other ids, and its
 * offsets start over: what was known of the old one's offsets says nothing of the new one's.
 */
interface TopicIdentity {
  /** The cluster's id and the topic's id, as Kafka states them. */
  record Ids(String clusterId, String topicId) {}

  /** The ids of {@code topic} now; a failed stage when they cannot be told. */
  CompletionStage<Ids> of(String topic);

  /** Tells nothing: whatever relies on the ids is left unused. */
  TopicIdentity UNKNOWN = topic -> CompletableFuture.failedFuture(
      new IllegalStateException("no topic identity"));
}
