package io.sluice.dispatcher.provider;

import java.util.List;
import java.util.Map;

/**
 * One call to a provider: for one event, or a batch of them.
 *
 * @param eventId    the event's id, sent as the {@code Idempotency-Key}: a provider sees the same
 *                   key on every attempt of one event, and after a replay, so it can deduplicate
 * @param path       relative path below the provider's base URL; null for the base URL itself
 * @param body       the event's payload, byte for byte as the producer wrote it; empty if none
 * @param attributes the event's attributes; only names the provider allows are forwarded
 * @param attempt    1 for the first call of this event, 2 after one provider failure, ...
 * @param cost       the event's cost in the provider's cost units (sent as {@code Sluice-Cost})
 * @param traceparent the call's span as W3C {@code traceparent}, sent as that header; null when
 *                   tracing is off (none sent)
 * @param batchIds   the ids of the events of a batch ({@link BatchBody}: {@code eventId} is then
 *                   the batch's key, {@code body} the array of their payloads, {@code cost} their
 *                   sum); empty for the call of one event
 */
public record ProviderCall(
    String eventId, String path, byte[] body, Map<String, String> attributes, int attempt,
    long cost, String traceparent, List<String> batchIds) {
  public ProviderCall {
    batchIds = batchIds == null ? List.of() : List.copyOf(batchIds);
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
    body = body == null ? new byte[0] : body;
    if (cost < 1) {
      throw new IllegalArgumentException("a cost of at least 1, not " + cost);
    }
  }

  /** The call of one event, traced ({@code traceparent}) or not (null). */
  public ProviderCall(String eventId, String path, byte[] body, Map<String, String> attributes,
      int attempt, long cost, String traceparent) {
    this(eventId, path, body, attributes, attempt, cost, traceparent, List.of());
  }

  /** The call of a batch of events ({@code batchIds}), untraced. */
  public ProviderCall(String eventId, String path, byte[] body, Map<String, String> attributes,
      int attempt, long cost, List<String> batchIds) {
    this(eventId, path, body, attributes, attempt, cost, null, batchIds);
  }

  /** An untraced call of one event. */
  public ProviderCall(String eventId, String path, byte[] body, Map<String, String> attributes,
      int attempt, long cost) {
    this(eventId, path, body, attributes, attempt, cost, null, List.of());
  }

  /** Whether this call carries a batch of events. */
  public boolean batch() {
    return !batchIds.isEmpty();
  }

  /** A call of cost 1. */
  public ProviderCall(String eventId, String path, byte[] body, Map<String, String> attributes,
      int attempt) {
    this(eventId, path, body, attributes, attempt, 1);
  }
}
