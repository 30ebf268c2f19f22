package io.sluice.app.simulate;

import io.sluice.schemas.validation.ValidationResult;

/**
 * Where a simulation's events come from, in arrival order: a recorded file ({@link RecordedEvents}),
 * the inbound topic ({@code TopicEvents}), or generated traffic ({@link SyntheticTraffic}). Each
 * arrival is handed to a sink rather than returned, so a source that reads millions of them makes
 * no object per event for the handing over.
 */
public interface Arrivals extends AutoCloseable {
  /** Takes one arrival: when, the value as the event contract reads it, and the value's size. */
  @FunctionalInterface
  interface Sink {
    void arrive(long atMillis, ValidationResult parsed, int valueBytes);
  }

  /** Hands the next arrival to {@code sink}; false at the end of the input or of a bound. */
  boolean next(Sink sink);

  /** Lines (records, generated events) read so far. */
  long linesRead();

  /** Whether a bound stopped the read before the end of the input. */
  boolean bounded();

  @Override
  void close();
}
