package io.sluice.relay.it;

import io.sluice.relay.RelayListener;
import java.util.ArrayList;
import java.util.List;

/** Keeps what a relay reports: its own lateness per release, its hops, its dead letters. Thread-safe. */
final class RecordingRelayListener implements RelayListener {
  /** One hop, from one step topic to another. */
  record Hop(String from, String to) {}

  private final List<Long> lateness = new ArrayList<>();
  private final List<Hop> hops = new ArrayList<>();
  private final List<String> deadLetters = new ArrayList<>();

  @Override
  public synchronized void released(String returnTo, long lateMillis) {
    lateness.add(lateMillis);
  }

  @Override
  public synchronized void hopped(String fromTopic, String toTopic) {
    hops.add(new Hop(fromTopic, toTopic));
  }

  @Override
  public synchronized void deadLettered(String detail) {
    deadLetters.add(detail);
  }

  /** The relay's own lateness of each release, in its order. */
  synchronized List<Long> lateness() {
    return List.copyOf(lateness);
  }

  synchronized List<Hop> hops() {
    return List.copyOf(hops);
  }

  synchronized List<String> deadLetters() {
    return List.copyOf(deadLetters);
  }
}
