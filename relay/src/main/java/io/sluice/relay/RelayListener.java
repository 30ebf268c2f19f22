package io.sluice.relay;

/** What the relay reports, for metrics and tests. Thread-safe implementations only. */
public interface RelayListener {
  /** A record left for its return topic, {@code lateMillis} after its not-before (never negative). */
  default void released(String returnTo, long lateMillis) {}

  /** A record hopped to a smaller step because its wait outlasted its step. */
  default void hopped(String fromTopic, String toTopic) {}

  /** A malformed record (no usable not-before, value or return topic) went to the dead-letter topic. */
  default void deadLettered(String detail) {}

  RelayListener NONE = new RelayListener() {};
}
