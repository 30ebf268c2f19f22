package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import io.sluice.config.DelayText;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One unit of work, the value on {@code sluice.inbound} (UTF-8 JSON, key = tenant id).
 * Mirrors {@code schemas/work-event.schema.json}; {@link io.sluice.schemas.validation.EventValidator}
 * enforces the same rules and the two are checked against one corpus.
 *
 * @param id         idempotency key, 1..128 chars; sent to HTTP providers as {@code Idempotency-Key}
 * @param tenant     {@code [A-Za-z0-9._:-]{1,128}}; the tier is never taken from the event
 * @param provider   must name a configured provider
 * @param cost       the event's weight, 1..provider maxCost (default 1)
 * @param deadline   past it the event is dead with reason {@code expired}; null when absent
 * @param path       relative path appended to the provider's base URL; null when absent
 * @param payload    any JSON, delivered unchanged; null when absent
 * @param attributes forwarded as request headers where the provider allows; never null
 * @param deliverAt  never called before this instant (on Redis's clock); null when absent
 * @param delay      never called before this long after the gate first saw it; null when absent.
 *                   At most one of {@code deliverAt} and {@code delay}; either at most the
 *                   provider's {@code maxDelay} ahead
 * @param orderingKey the event's key among its tenant's events toward its provider: called in
 *                   inbound order with the others of its key when the provider orders per key;
 *                   null when absent
 * @param priority   the event's class among its tenant's own events ({@link Priority}); null when
 *                   absent, which is {@link Priority#DEFAULT} ({@link #priorityClass()})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WorkEvent(
    String id,
    String tenant,
    String provider,
    int cost,
    Instant deadline,
    String path,
    JsonNode payload,
    Map<String, String> attributes,
    Instant deliverAt,
    @JsonSerialize(converter = DelayText.Written.class) Duration delay,
    String orderingKey,
    Priority priority) {

  public static final int DEFAULT_COST = 1;

  public WorkEvent {
    attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
  }

  /** An event to be called as soon as its quota allows (no {@code deliverAt}, no {@code delay}). */
  public WorkEvent(String id, String tenant, String provider, int cost, Instant deadline,
      String path, JsonNode payload, Map<String, String> attributes) {
    this(id, tenant, provider, cost, deadline, path, payload, attributes, null, null, null, null);
  }

  /** An event that may ask for a time, with no {@code orderingKey} and of no named {@code priority}. */
  public WorkEvent(String id, String tenant, String provider, int cost, Instant deadline,
      String path, JsonNode payload, Map<String, String> attributes, Instant deliverAt, Duration delay) {
    this(id, tenant, provider, cost, deadline, path, payload, attributes, deliverAt, delay, null, null);
  }

  /** An event that may ask for a time and name an {@code orderingKey}, of no named {@code priority}. */
  public WorkEvent(String id, String tenant, String provider, int cost, Instant deadline,
      String path, JsonNode payload, Map<String, String> attributes, Instant deliverAt, Duration delay,
      String orderingKey) {
    this(id, tenant, provider, cost, deadline, path, payload, attributes, deliverAt, delay, orderingKey, null);
  }

  /** An event that may ask for a time and name its {@code priority}, with no {@code orderingKey}. */
  public WorkEvent(String id, String tenant, String provider, int cost, Instant deadline,
      String path, JsonNode payload, Map<String, String> attributes, Instant deliverAt, Duration delay,
      Priority priority) {
    this(id, tenant, provider, cost, deadline, path, payload, attributes, deliverAt, delay, null, priority);
  }

  /** The event's class: the one it names, else {@link Priority#DEFAULT}. */
  public Priority priorityClass() {
    return priority == null ? Priority.DEFAULT : priority;
  }

  /** Whether the producer asked for a time ({@code deliverAt} or {@code delay}). */
  public boolean scheduled() {
    return deliverAt != null || delay != null;
  }

  /**
   * How Jackson binds the JSON form. The contract says an absent (or null) cost means
   * {@link #DEFAULT_COST}; binding straight to the {@code int} component would turn it into 0, an
   * invalid cost. The canonical constructor stays literal: a cost of 0 passed in code stays 0.
   */
  @JsonCreator
  private static WorkEvent fromJson(
      @JsonProperty("id") String id,
      @JsonProperty("tenant") String tenant,
      @JsonProperty("provider") String provider,
      @JsonProperty("cost") Integer cost,
      @JsonProperty("deadline") Instant deadline,
      @JsonProperty("path") String path,
      @JsonProperty("payload") JsonNode payload,
      @JsonProperty("attributes") Map<String, String> attributes,
      @JsonProperty("deliverAt") Instant deliverAt,
      @JsonProperty("delay") String delay,
      @JsonProperty("orderingKey") String orderingKey,
      @JsonProperty("priority") String priority) {
    return new WorkEvent(id, tenant, provider, cost == null ? DEFAULT_COST : cost, deadline, path,
        payload, attributes, deliverAt, delay == null ? null : DelayText.parse(delay), orderingKey,
        priority == null ? null : Priority.of(priority).orElseThrow(
            () -> new IllegalArgumentException("field 'priority' must be one of " + Priority.names())));
  }


  public Optional<Instant> deadlineOpt() {
    return Optional.ofNullable(deadline);
  }
}
