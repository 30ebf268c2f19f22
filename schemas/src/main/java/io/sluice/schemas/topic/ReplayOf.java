package io.sluice.schemas.topic;

/**
 * The header a dead-letter replay puts on the event it writes to inbound: the coordinates of the
 * dead letter it replays ({@code sluice.dlq-0@42}). Outside the {@code sluice-} namespace, so the
 * gate does not strip it as a forgery ({@code ReplayMark} in the application says why). The gate
 * reads it for one thing: an operator's replay is called again whatever the provider's
 * {@code dedupWindow} remembers of its id (a producer writing it only repeats its own event).
 */
public final class ReplayOf {
  public static final String HEADER = "x-sluice-replay-of";

  private ReplayOf() {}
}
