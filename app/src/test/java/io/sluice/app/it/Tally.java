package io.sluice.app.it;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.schemas.event.Reason;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts what a dispatcher reports, by "what:provider[:reason]", for assertions. */
final class Tally implements DispatchListener {
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  long get(String key) {
    AtomicLong n = counts.get(key);
    return n == null ? 0 : n.get();
  }

  private void add(String key) {
    counts.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
  }

  @Override
  public void delivered(String provider, String tier) {
    add("delivered:" + provider);
  }

  @Override
  public void deferred(String provider, String tier, Reason reason) {
    add("deferred:" + provider + ":" + reason.code());
  }

  @Override
  public void dead(String provider, String tier, Reason reason) {
    add("dead:" + provider + ":" + reason.code());
  }

  @Override
  public void throttled(String provider, long retryAfterMillis) {
    add("throttled:" + provider);
  }

  @Override
  public void endpointDisabled(String provider) {
    add("endpointDisabled:" + provider);
  }

  @Override
  public void endpointEnabled(String provider) {
    add("endpointEnabled:" + provider);
  }

  @Override
  public String toString() {
    return new java.util.TreeMap<>(counts).toString();
  }
}
