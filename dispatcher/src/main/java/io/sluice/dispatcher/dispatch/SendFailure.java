package io.sluice.dispatcher.dispatch;

import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * What a failed produce means for the record that settles an event. Pure.
 *
 * <p>Kafka marks the errors that may succeed if the same record is sent again
 * ({@link RetriableException}: a leader moving, a timeout, not enough replicas). Everything else
 * will fail again however often it is sent: the record is too large for the broker or the topic,
 * the principal may not write the topic, the topic name is invalid, the producer has a fatal error
 * or is closed. Resending those every second for ever, silently, is what this tells apart.
 */
enum SendFailure {
  /** May succeed if sent again. */
  RETRIABLE,
  /** The record is larger than the broker or the topic accepts. */
  TOO_LARGE,
  /** Will fail again as it is. */
  PERMANENT;

  static SendFailure of(Throwable error) {
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
}
