package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * A delivered event: the value on {@code sluice.outcomes} (UTF-8 JSON, key = tenant id). Mirrors
 * {@code schemas/outcome.schema.json}. Small on purpose: the payload is not repeated; the event id
 * is the join key back to the inbound record.
 *
 * @param id          the WorkEvent id
 * @param tenant      the tenant (also the record key)
 * @param provider    the provider that took it
 * @param tier        the tier it was scheduled in
 * @param status      the provider's HTTP status (2xx), or 200 for an in-process handler
 * @param attempts    provider calls made, this successful one included
 * @param firstSeen   epoch milliseconds when Sluice first saw the event
 * @param deliveredAt epoch milliseconds when the provider's answer came back
 * @param latencyMs   milliseconds from sending the successful call to its answer; null if unknown
 * @param headers     the response headers the provider's {@code capture.headers} lists, lower-case
 *                    name to value; null when none
 * @param body        the first {@code capture.bodyBytes} bytes of the answer's body, as text
 *                    (control characters as '?'); null when not captured
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Outcome(
    String id,
    String tenant,
    String provider,
    String tier,
    int status,
    int attempts,
    Long firstSeen,
    long deliveredAt,
    Long latencyMs,
    Map<String, String> headers,
    String body) {

  /** An outcome with nothing of the answer beyond its status. */
  public Outcome(String id, String tenant, String provider, String tier, int status, int attempts,
      Long firstSeen, long deliveredAt) {
    this(id, tenant, provider, tier, status, attempts, firstSeen, deliveredAt, null, null, null);
  }
}
