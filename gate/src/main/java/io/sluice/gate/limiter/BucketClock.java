package io.sluice.gate.limiter;

/**
 * The bucket's clock (Redis TIME) as seen from this instance after one round trip: Redis read
 * {@code bucketMicros} somewhere between the local monotonic instants {@code sentNanos} and
 * {@code receivedNanos}. So at a later local instant the bucket's clock reads at least
 * {@link #lowerMicros} and at most {@link #upperMicros}. Callers pick the bound that errs on the
 * strict side: the lower one for stamps and due times, the upper one for ends of validity. Drift
 * of the local monotonic clock over a few seconds (parts per million) is far below a microsecond.
 */
record BucketClock(long bucketMicros, long sentNanos, long receivedNanos) {
  long lowerMicros(long localNanos) {
    return bucketMicros + Math.max(0, (localNanos - receivedNanos) / 1000);
  }

  long upperMicros(long localNanos) {
    return bucketMicros + Math.max(0, Math.floorDiv(localNanos - sentNanos + 999, 1000));
  }
}
