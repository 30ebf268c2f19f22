package io.sluice.lab.bench;

import io.sluice.schemas.event.Reason;
import io.sluice.gate.GateListener;
import java.util.concurrent.atomic.LongAdder;

/** Counts what the gate decided, from its listener (every stream thread reports here). */
final class GateTally implements GateListener {
  final LongAdder decided = new LongAdder();
  final LongAdder admitted = new LongAdder();
  final LongAdder reserved = new LongAdder();
  final LongAdder queued = new LongAdder();
  final LongAdder dead = new LongAdder();
  final LongAdder redisCalls = new LongAdder();

  @Override
  public void decided(String provider, String tier) {
    decided.increment();
  }

  @Override
  public void redisCall(String provider, long nanos) {
    redisCalls.increment();
  }

  @Override
  public void admitted(String provider, String tier, int cost) {
    admitted.increment();
  }

  @Override
  public void deferred(String provider, String tier, Reason reason, boolean paid) {
    (paid ? reserved : queued).increment();
  }

  @Override
  public void dead(Reason reason) {
    dead.increment();
  }
}
