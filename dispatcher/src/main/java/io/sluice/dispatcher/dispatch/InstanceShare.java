package io.sluice.dispatcher.dispatch;

/**
 * How many dispatcher instances share the providers' leaks, as this one estimates it from the
 * share of the ready topics' partitions it owns ({@code sluice.ready} and {@code sluice.ready.high}
 * together): {@code ceil(partitions / owned)}, and 1 while
 * it owns none (it calls nothing then, and a fallback leak kept alone must not starve). The leak's
 * in-process fallback divides a provider's rate by it while Redis is away
 * ({@code FailoverLeakyBucket}). Written by the consumer thread at every assignment, read by any.
 */
final class InstanceShare {
  private final int partitions;
  private volatile int owned;

  /** @param partitions the partitions of both ready topics (at least 1 is taken) */
  public InstanceShare(int partitions) {
    this.partitions = Math.max(1, partitions);
  }

  /** This instance owns {@code count} partitions now. */
  void owns(int count) {
    owned = count;
  }

  /** The instances sharing the leaks, estimated: at least 1. */
  public int instances() {
    int mine = owned;
    return mine == 0 ? 1 : (int) Math.ceil(partitions / (double) mine);
  }
}
