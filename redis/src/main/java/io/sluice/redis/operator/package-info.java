/**
 * What an operator set (pauses, tenant registry records) kept durably in Kafka, with Redis as a
 * cache of it (docs/decisions/2026-11-29-operator-state.md).
 * <ul>
 *   <li>{@link io.sluice.redis.operator.OperatorEntry}: one key's value, and the record format on
 *       the operator topic (versioned; secrets only sealed);</li>
 *   <li>{@link io.sluice.redis.operator.OperatorView}: the latest value of every key, as read;</li>
 *   <li>{@link io.sluice.redis.operator.CacheRepair}: the pure decision: is the cache in Redis to
 *       be seeded again from the log, now?</li>
 *   <li>{@link io.sluice.redis.operator.OperatorJournal} (writes, acknowledged) and
 *       {@link io.sluice.redis.operator.OperatorLog} (reads it from the start and tails it): the
 *       Kafka edges.</li>
 * </ul>
 */
package io.sluice.redis.operator;
