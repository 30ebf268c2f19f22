package io.sluice.gate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.serde.Json;

/**
 * A receipt of one decision of the gate's limit step, the value of a record on
 * {@code <prefix>receipts} (with {@code gate.receipts}), keyed by tenant: small JSON a producer
 * reads to learn when its event is expected at its provider.
 *
 * <pre>{"id":"order-1","tenant":"acme","provider":"payments-api","decision":"reserved",
 *  "etaMillis":1795949000123,"reason":"rate_limited"}</pre>
 *
 * {@code decision}: {@code admitted} (to ready now), {@code reserved} (charged ahead, waits
 * paid), {@code queued} (beyond the horizon, waits for its turn with a ticket; a later receipt
 * follows when it is charged), {@code held} ({@code fail_closed} while Redis does not answer;
 * decided again later) or {@code dead} (its deadline cannot be met). {@code etaMillis} is the
 * {@code sluice-eta} the event carries (null for {@code held}); {@code reason} the
 * {@code sluice-reason} (null when admitted). Only what the event's own fields and the decision
 * say: no payload, no header, no secret.
 */
record Receipt(String id, String tenant, String provider, String decision, Long etaMillis,
    Reason reason) {

  /** The receipt as the record's value, UTF-8 JSON in the field order above. */
  byte[] json() {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("id", id);
    o.put("tenant", tenant);
    o.put("provider", provider);
    o.put("decision", decision);
    o.put("etaMillis", etaMillis);
    o.put("reason", reason == null ? null : reason.code());
    try {
      return Json.mapper().writeValueAsBytes(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a receipt is strings and a number: " + e.getMessage(), e);
    }
  }
}
