package io.sluice.schemas.topic;

import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.InvalidRecordException;

/**
 * What a failed produce means for the record sent. Pure.
 *
 * <p>Kafka marks the errors that may succeed if the same record is sent again
 * ({@link RetriableException}: a leader moving, a timeout, not enough replicas). Everything else
 * will fail again however often it is sent: the record is too large for the broker or the topic,
 * the principal may not write the topic, the topic name is invalid, the producer has a fatal error
 * or is closed. Resending those every second for ever, silently, is what this tells apart.
 */
public enum SendFailure {
  /** May succeed if sent again. */
  RETRIABLE,
  /** The record is larger than the broker or the topic accepts. */
  TOO_LARGE,
  /** Will fail again as it is. */
  PERMANENT;

  public static SendFailure of(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RecordTooLargeException) {
        return TOO_LARGE;
      }
      if (t instanceof RetriableException) {
        return RETRIABLE;
      }
    }
    return PERMANENT;
  }

  /**
   * True if the error is this record's own (too large, its topic not writable or invalid, a record
   * the broker refuses), false if the producer or its transaction failed whatever was sent (a
   * transaction aborted, a fenced or closed producer): sending another record instead of this
   * one then cures nothing.
   */
  public static boolean isTheRecords(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof RecordTooLargeException || t instanceof TopicAuthorizationException
          || t instanceof InvalidTopicException || t instanceof InvalidRecordException) {
        return true;
      }
    }
    return false;
  }
}
