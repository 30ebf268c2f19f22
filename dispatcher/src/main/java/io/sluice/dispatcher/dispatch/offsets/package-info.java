/**
 * What the dispatcher commits and what a new owner of a partition inherits: the partitions owned
 * with their {@link io.sluice.schemas.offsets.OffsetLedger}s
 * ({@link io.sluice.dispatcher.dispatch.offsets.OwnedPartitions}), the commits
 * ({@link io.sluice.dispatcher.dispatch.offsets.OffsetCommits}), the take-over
 * ({@link io.sluice.dispatcher.dispatch.offsets.PartitionTakeover}), and the calls delivered beyond
 * the commit, kept in Redis ({@link io.sluice.dispatcher.dispatch.offsets.DeliveredLog}). The ledger
 * and the commit metadata's codec are shared with the relay, in {@code schemas}.
 */
package io.sluice.dispatcher.dispatch.offsets;
