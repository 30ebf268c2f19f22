package io.sluice.gate.it;

import io.sluice.config.RedisDownPolicy;
import io.sluice.gate.GateListener;
import java.util.concurrent.atomic.AtomicLong;

/** Counts what the gate reports; thread-safe. */
public final class CountingListener implements GateListener {
  public final AtomicLong decisions = new AtomicLong();
  public final AtomicLong redisCalls = new AtomicLong();
  public final AtomicLong fallbacks = new AtomicLong();
  public final AtomicLong wouldDefer = new AtomicLong();

  @Override
  public void decided(String provider, String tier) {
    decisions.incrementAndGet();
  }

  @Override
  public void redisCall(String provider, long nanos) {
    redisCalls.incrementAndGet();
  }

  @Override
  public void shadowWouldDefer(String provider, String tier, long waitMillis) {
    wouldDefer.incrementAndGet();
  }

  @Override
  public void redisFallback(String provider, RedisDownPolicy policy) {
    fallbacks.incrementAndGet();
  }
}
