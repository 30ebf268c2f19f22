package io.sluice.schemas.trace;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The {@code traceparent} a record carries in its Kafka headers, from stage to stage. Each stage
 * reads the last one as its parent ({@link #parent}) and replaces every copy with its own span's
 * ({@link #carry}), so the next stage is the child of this one and a record never carries two.
 * Only a role with tracing on touches the header; with tracing off a producer's
 * {@code traceparent} is an ordinary producer header (kept, never sent to a provider).
 */
public final class TraceHeaders {
  private TraceHeaders() {}

  /**
   * The last {@code traceparent} of {@code headers}, or null when there is none or it is unusable
   * ({@link TraceParent#parse}: a malformed or oversized one starts a new trace).
   */
  public static TraceParent parent(Headers headers) {
    Header h = headers.lastHeader(TraceParent.HEADER);
    return h == null ? null : TraceParent.parse(h.value());
  }

  /**
   * {@code headers} carrying {@code context} as their only {@code traceparent}; untouched when
   * {@code context} is null (tracing off). {@code headers} must be the outgoing record's own
   * copy: it is changed in place.
   */
  public static Headers carry(Headers headers, TraceParent context) {
    if (context != null) {
      headers.remove(TraceParent.HEADER);
      headers.add(TraceParent.HEADER, context.bytes());
    }
    return headers;
  }
}
