/**
 * The operators' state kept in Redis as a cache of the operator topic: {@link
 * io.sluice.app.state.CacheKeeper} seeds it again when Redis lost it and follows the topic's
 * changes meanwhile (docs/decisions/2026-11-29-operator-state.md).
 */
package io.sluice.app.state;
