package io.sluice.app.dlq;

import io.sluice.schemas.topic.ReplayOf;

/**
 * How a replayed event says it is one: the header {@value #HEADER}, whose value is the coordinates
 * of the dead letter it replays ({@code sluice.dlq-0@42}).
 *
 * <p>Why not a {@code sluice-replayed} header: every {@code sluice-*} header on inbound is a
 * producer's forgery to the gate, which strips them all before anything reads one
 * ({@code StripHeadersStep}), and the replay writes inbound like any producer. A name
 * outside that namespace passes the gate untouched, travels with the event to ready, and stays on
 * its outcome or its next dead letter, where {@code dlq list} shows it. Why not a field of the
 * event: the value is the producer's bytes, kept byte for byte (invariant 5), and the provider
 * would receive the field in its payload.
 *
 * <p>The mark is information, never a decision: any producer can write it, so nothing in Sluice
 * behaves differently for a marked event (same quotas, same attempts). What stops a second replay
 * of the same dead letter is the ledger ({@link ReplayLedger}), not the mark.
 */
public final class ReplayMark {
  public static final String HEADER = ReplayOf.HEADER;

  private ReplayMark() {}
}
