/**
 * Dead letters for an operator: listing them with bounded filters ({@code DeadLetterQuery}) and
 * replaying them to inbound, once per death ({@code ReplaySelection}, the pure decision; {@code
 * ReplayLedger}, the record of replays; {@code Replayer}, one transaction per batch), read with
 * {@code BoundedScan} in no consumer group. See docs/dead-letters.md.
 */
package io.sluice.app.dlq;
