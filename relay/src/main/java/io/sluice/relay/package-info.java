/**
 * The relay role: it reads each delay topic ahead and returns each record, when it falls due by
 * Redis's clock, to the topic its header names ({@code sluice.ready} or {@code sluice.regate}),
 * committing what it released out of order in the offsets' metadata. See docs/relay.md.
 */
package io.sluice.relay;
