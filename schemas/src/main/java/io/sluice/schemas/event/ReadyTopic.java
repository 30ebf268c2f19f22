package io.sluice.schemas.event;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import org.apache.kafka.common.header.Headers;

/**
 * Which ready topic an event waits in for its dispatcher, by its {@link Priority}: the
 * {@code high} class in {@link Topics#readyHigh()}, every other in {@link Topics#ready()}. Pure.
 *
 * <h2>Why a topic of its own, and only for high</h2>
 *
 * The dispatcher reads each partition in order, within a read budget per partition, and queues
 * what it read in its fair queue, where a tenant's own entries go by class. A class can only go
 * first among what was read: a tenant that wrote 20,000 lows and then a high had its high read
 * after the lows, minutes later at its share of a provider (issue 36: p99 33-37 s from produce to
 * call). Two ready topics read by one consumer, each partition with its own budget, let a high be
 * read while the partitions of ready are paused. Normal and low share ready: a normal event behind
 * lows still waits for them to be read, as before the classes existed; a third topic would buy
 * normal over low the same way, and is not worth its partitions while nobody asks for it.
 *
 * <p>The gate writes the class in the {@code sluice-priority} header ({@link #stamp}) so that the
 * relay, which never parses a value, sends a high back to its topic ({@link #releaseTo}): the
 * dispatcher's retries and parked events name {@code ready} as their return, whatever their class.
 */
public final class ReadyTopic {
  private ReadyTopic() {}

  /** The ready topic of an event of class {@code priority}. */
  public static String of(Topics topics, Priority priority) {
    return priority == Priority.HIGH ? topics.readyHigh() : topics.ready();
  }

  /**
   * Where the relay sends a record that names {@code returnTo}: as named, except that a record
   * returning to ready goes to the ready topic of the class its headers carry.
   */
  public static String releaseTo(Topics topics, String returnTo, Headers headers) {
    return returnTo.equals(topics.ready()) ? of(topics, classOf(headers)) : returnTo;
  }

  /** The class a record's {@code sluice-priority} header names; {@link Priority#DEFAULT} if none or unknown. */
  public static Priority classOf(Headers headers) {
    return HeaderValues.last(headers, HeaderNames.PRIORITY).flatMap(Priority::of)
        .orElse(Priority.DEFAULT);
  }

  /** Writes the event's class in {@code headers}: the header's one value, or none for the default. */
  public static void stamp(Headers headers, Priority priority) {
    headers.remove(HeaderNames.PRIORITY);
    if (priority != Priority.DEFAULT) {
      HeaderValues.put(headers, HeaderNames.PRIORITY, priority.wire());
    }
  }
}
