/**
 * The committed offset plus what is done above it, carried in the commit's metadata: one
 * {@link io.sluice.schemas.offsets.OffsetLedger} per partition for the relay (records released) and
 * the dispatcher (records settled), one versioned
 * {@link io.sluice.schemas.offsets.SettledOffsetsCodec} for the metadata, and the
 * {@link io.sluice.schemas.offsets.Overflow} policy each role picks when it would not fit. Pure: no
 * Kafka client here, the roles commit.
 */
package io.sluice.schemas.offsets;
