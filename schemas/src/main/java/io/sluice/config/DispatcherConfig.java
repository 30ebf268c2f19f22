package io.sluice.config;

import java.time.Duration;

/**
 * Settings of the dispatcher role (an extension of the DESIGN.md shape; every field has a default).
 *
 * @param groupId       consumer group of every dispatcher instance; they share {@code sluice.ready}
 * @param bufferSize    events held in memory per provider, waiting for the leak; beyond it the one
 *                      the fair queue would serve last is deferred through the ladder (overflow)
 * @param lookahead     how far ahead of now an instance may claim leak slots from Redis; short,
 *                      so that a slot claimed is a slot used, and a Retry-After stops calls soon
 * @param backoffBase   first retry delay bound after a provider failure (exponential, full jitter)
 * @param backoffCap    largest retry delay bound
 * @param minRateFactor the deepest a provider's 429s may cut its leak rate, as a fraction of it
 * @param recovery      how long a cut leak rate takes to climb back to the configured rate
 * @param bufferBytes   bytes of records (key, value, headers) one dispatcher instance holds read and
 *                      not yet settled, shared equally by the providers; a provider at its share
 *                      overflows through the ladder, and past the whole of it reading pauses
 * @param priorityAging how long an event waiting in a lane's queue takes to count as one priority
 *                      class higher (the aging bound of {@code PriorityOrder})
 */
public record DispatcherConfig(
    String groupId,
    int bufferSize,
    Duration lookahead,
    Duration backoffBase,
    Duration backoffCap,
    double minRateFactor,
    Duration recovery,
    int bufferBytes,
    Duration priorityAging) {}
