package io.sluice.lab.bench;

import io.sluice.relay.RelayListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/** What the relay reported: each release's lateness (release time − not-before) and the hops. */
final class RelayTally implements RelayListener {
  private final List<Long> lateMillis = new ArrayList<>();
  final LongAdder hops = new LongAdder();

  @Override
  public synchronized void released(String returnTo, long lateMillis) {
    this.lateMillis.add(lateMillis);
  }

  @Override
  public void hopped(String fromTopic, String toTopic) {
    hops.increment();
  }

  synchronized double[] lateMillis() {
    return lateMillis.stream().mapToDouble(Long::doubleValue).toArray();
  }

  synchronized int released() {
    return lateMillis.size();
  }
}
