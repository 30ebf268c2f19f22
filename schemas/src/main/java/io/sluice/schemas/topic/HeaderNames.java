package io.sluice.schemas.topic;

/**
 * Header names Sluice writes. Payload bytes are never rewritten; everything Sluice knows about a
 * record travels in these headers. Values are UTF-8 strings (numbers in decimal).
 */
public final class HeaderNames {
  /** Provider attempts made so far (only provider failures count). */
  public static final String ATTEMPT = "sluice-attempt";
  /** Epoch milliseconds before which the relay must not release the record. */
  public static final String NOT_BEFORE = "sluice-not-before";
  /** The topic the relay returns the record to when it is due. */
  public static final String RETURN_TO = "sluice-return-to";
  /** A {@link io.sluice.schemas.event.Reason} code. */
  public static final String REASON = "sluice-reason";
  /** Human-readable detail next to a reason (dead letters, deferrals). */
  public static final String DETAIL = "sluice-detail";
  /** Epoch milliseconds when Sluice first saw the event. */
  public static final String FIRST_SEEN = "sluice-first-seen";
  /** The tier the gate resolved from configuration. */
  public static final String TIER = "sluice-tier";
  /**
   * Epoch ms at which the gate expects the event at its provider by its quota, written by each
   * decision of the gate (admitted, reserved, queued); the provider's pace comes on top.
   */
  public static final String ETA = "sluice-eta";
  /**
   * Where a dead letter was read before it died, as {@code topic-partition@offset}: the one
   * coordinate that lets an operator find the original record again (and replay it).
   */
  public static final String SOURCE = "sluice-source";
  /**
   * The WorkEvent id of a dead letter, when its value parsed far enough to have one. Lets tooling
   * (e.g. {@code verify}) reconcile ids without parsing values that may be malformed.
   */
  public static final String EVENT_ID = "sluice-event-id";
  /**
   * What a settlement settles: the {@code topic-partition@offset} of the record the dispatcher
   * read and settled (with an outcome, a retry or a dead letter). Every copy of one settlement
   * names the same record: a produce that timed out after the broker wrote it is sent again, and
   * both copies land. So a reader drops a copy whose settlement it has seen (the dispatcher, for
   * retries coming back to {@code sluice.ready}); anyone counting outcomes or dead letters counts
   * each value once.
   */
  public static final String SETTLES = "sluice-settles";
  /**
   * On an outcome that is not a delivery: {@code duplicate} (the gate's, for an id already
   * accepted within its provider's {@code dedupWindow}). Absent on a delivery's outcome.
   */
  public static final String OUTCOME = "sluice-outcome";
  /**
   * An ordered event's turn in its key ({@code OrderTicket}: {@code v1 <epoch> <seq>}), given by
   * the gate on the event's first sight; the dispatcher calls the event only at its key's turn.
   */
  public static final String ORDER = "sluice-order";
  /**
   * The event's priority class ({@code high} or {@code low}), written by the gate on every record
   * of an event that names a class other than {@code normal}: the relay, which never parses a
   * value, returns a record of the {@code high} class to {@code <prefix>ready.high}
   * ({@code ReadyTopic}). Absent: {@code normal}.
   */
  public static final String PRIORITY = "sluice-priority";
  /** "true" when the gate already charged this event; the relay returns it to sluice.ready. */
  public static final String PAID = "sluice-paid";
  /**
   * Present on an event deferred unpaid with a place in its bucket's waiting line: when the event
   * comes back at its not-before, the gate reserves its slot without re-checking the horizon, so
   * an unpaid event is gated at most twice.
   */
  public static final String TICKET = "sluice-ticket";
  /**
   * The transactional id of the producer that wrote the record ({@link WriterStamp}), so that the
   * records of one hanging transaction can be told from the others on its partition.
   */
  public static final String WRITER = "sluice-writer";

  /**
   * Every header Sluice writes starts with this. On {@code inbound} a producer wrote them all, so
   * the gate strips every header with this prefix (in any case) before anything reads one.
   */
  public static final String PREFIX = "sluice-";

  private HeaderNames() {}

  /** True for a name in Sluice's namespace, compared without case ({@code Sluice-Attempt} too). */
  public static boolean isSluice(String name) {
    return name != null && name.regionMatches(true, 0, PREFIX, 0, PREFIX.length());
  }
}
