package io.sluice.gate;

/**
 * What the gate remembers of the first record that brought an event id: where it was read, when
 * it was accepted, and what the gate did with it. Stored as the value of the id's key (one line,
 * {@code v1 <source> <acceptedAtMillis> <status>}); pure.
 *
 * <h2>Why the source makes it exact</h2>
 *
 * The mark is written to Redis before the gate's Kafka transaction commits, and nothing can make
 * the two one atomic step. So the mark says which record it was: {@code topic-partition@offset}.
 * A gate that crashes (or whose task moves) after the mark and before its commit reads the same
 * record again from the committed offset, finds its own source in the mark and goes on: the event
 * is accepted once, by the transaction that finally commits. Another record with the id (a
 * producer's retry, an outbox's replay) has another source: a duplicate. Events of one tenant are
 * one partition, read in order, so the first copy is always read again before the second.
 *
 * @param source           the first record's {@code topic-partition@offset}
 * @param acceptedAtMillis when the gate accepted it (its clock)
 * @param status           what the gate did with it: {@link #ACCEPTED} (on to its quota) or
 *                         {@link #SCHEDULED} (waiting for the time it asked for)
 */
record DedupMark(String source, long acceptedAtMillis, String status) {
  static final String ACCEPTED = "accepted";
  static final String SCHEDULED = "scheduled";
  private static final String VERSION = "v1";

  String encoded() {
    return VERSION + " " + source + " " + acceptedAtMillis + " " + status;
  }

  /** The mark, or null when the text is not one this version wrote (then nothing is suppressed). */
  static DedupMark decoded(String text) {
    if (text == null) {
      return null;
    }
    String[] parts = text.split(" ");
    if (parts.length != 4 || !VERSION.equals(parts[0])) {
      return null;
    }
    try {
      return new DedupMark(parts[1], Long.parseLong(parts[2]), parts[3]);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Whether {@code first}, the stored mark, is another record's: then this one is a duplicate. */
  boolean duplicates(DedupMark first) {
    return first != null && !first.source.equals(source);
  }
}
