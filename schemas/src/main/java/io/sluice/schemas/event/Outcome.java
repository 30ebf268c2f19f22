package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonInclude;

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
    long deliveredAt) {}
