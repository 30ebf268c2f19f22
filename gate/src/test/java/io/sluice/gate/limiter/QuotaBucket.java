package io.sluice.gate.limiter;

/**
 * One bucket as a history plays it: decided at a time the history gives (never Redis's own clock),
 * and lost when the history says. Implemented by the Java mirror ({@link Mirror}) and by the Lua
 * on a redis-server ({@code QuotaBoundScriptIT}).
 */
interface QuotaBucket {
  Acquisition acquire(BucketSpec spec, AcquireRequest request, long nowMicros) throws Exception;

  /** Redis loses the bucket's slot: the bucket and the slot's marker. */
  void wipe() throws Exception;

  /** The time of the bucket's last decision as stored (the mirror's), or -1 for none. */
  long updatedMicros();

  /** {@link TokenBucketMath}, holding the state the script would store. */
  final class Mirror implements QuotaBucket {
    private BucketState state;
    private boolean wiped;
    private long lostMicros;

    @Override
    public Acquisition acquire(BucketSpec spec, AcquireRequest request, long nowMicros) {
      if (wiped) {
        // The script finds the slot's marker missing at its first call after the loss, and
        // dates the loss then.
        lostMicros = nowMicros;
        wiped = false;
      }
      TokenBucketMath.Step step = TokenBucketMath.acquire(state, spec, request, nowMicros, lostMicros);
      state = step.next();
      return step.acquisition();
    }

    @Override
    public void wipe() {
      state = null;
      wiped = true;
    }

    @Override
    public long updatedMicros() {
      return state == null ? -1 : state.updatedMicros();
    }
  }
}
