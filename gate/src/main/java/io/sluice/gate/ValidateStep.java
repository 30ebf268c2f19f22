package io.sluice.gate;

import io.sluice.config.SluiceConfig;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.validation.EventRules;
import io.sluice.schemas.validation.EventValidator;
import io.sluice.schemas.validation.ValidationResult;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Parses and checks each inbound value. Bad input never stops the stream: malformed JSON, a
 * missing or malformed field, an unknown provider, a cost above the provider's maximum, an
 * oversize payload or a passed deadline each go to the dead-letter topic with a reason, a detail
 * and the original bytes, and the next record is processed.
 *
 * <p>An inbound record's key must be its event's tenant id (UTF-8): a tenant's quota is kept by
 * the one stream task its events meet in, in Redis and, while Redis is down, in process
 * ({@code LocalBuckets}); a tenant whose events came under other keys (none, or another
 * tenant's) would be spread over partitions and get a quota per partition while Redis is down.
 * Such a record is dead-lettered ({@code invalid}, saying so), not re-keyed: a re-key would need a
 * repartition topic and could not keep its order with the tenant's correctly keyed events, while
 * dead-lettering leaves every correctly keyed event in its order. {@code regate} holds only
 * Sluice's own records, keyed as they came in, and is not checked; an unknown tenant is left to
 * be dead-lettered as {@code unknown_tenant}.
 */
final class ValidateStep {
  private final Clock clock;
  private final GateListener listener;
  private final EventValidator validator = new EventValidator();
  private final TenantLookup tenants;
  /** The rules of the configuration last seen; rebuilt when a reload replaces it. */
  private SluiceConfig rulesOf;
  private EventRules rules;
  private ProcessorContext<byte[], Object> context;

  ValidateStep(TenantLookup tenants, Clock clock, GateListener listener) {
    this.tenants = tenants;
    this.clock = clock;
    this.listener = listener;
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /**
   * The record's event, or null when it was dead-lettered here.
   *
   * @param fromInbound whether the record came from {@code inbound}, whose keys must be tenants
   * @param current the configuration this event is decided under
   */
  WorkEvent validate(Record<byte[], byte[]> record, boolean fromInbound, SluiceConfig current) {
    byte[] raw = record.value() == null ? new byte[0] : record.value();
    if (current != rulesOf) {
      rules = new EventRules(current, validator);
      rulesOf = current;
    }
    // An oversize value is never parsed.
    var oversize = rules.checkSize(raw.length);
    if (oversize.isPresent()) {
      dead(record, raw, oversize.get().reason(), oversize.get().detail(), null);
      return null;
    }
    // The payload stays bytes: every sink writes the value as it came.
    ValidationResult parsed = validator.validateLeavingPayload(raw);
    if (parsed instanceof ValidationResult.Invalid invalid) {
      dead(record, raw, invalid.reason(), invalid.detail(), null);
      return null;
    }
    WorkEvent event = ((ValidationResult.Valid) parsed).event();
    ValidationResult checked = rules.check(event, raw.length);
    if (checked instanceof ValidationResult.Invalid invalid) {
      dead(record, raw, invalid.reason(), invalid.detail(), event.id());
      return null;
    }
    // (An unknown tenant goes on to be dead-lettered as such by the tier's step.)
    String tenant = event.tenant();
    if (fromInbound && !Arrays.equals(record.key(), tenant.getBytes(StandardCharsets.UTF_8))
        && current.tierOf(TenantRecord.effective(current, tenant, tenants.registered(tenant))).isPresent()) {
      dead(record, raw, Reason.INVALID, "the record key must be the tenant id '" + event.tenant()
          + "' in UTF-8, so that a tenant's events meet in one partition and one quota; it was "
          + (record.key() == null ? "null" : record.key().length + " other bytes"), event.id());
      return null;
    }
    long now = clock.millis();
    if (event.deadline() != null && event.deadline().toEpochMilli() < now) {
      dead(record, raw, Reason.EXPIRED, "deadline " + event.deadline() + " passed before the event was admitted", event.id());
      return null;
    }
    return event;
  }

  private void dead(Record<byte[], byte[]> record, byte[] raw, Reason reason, String detail, String id) {
    listener.dead(reason);
    context.forward(DeadLetters.of(record, null, raw, reason, detail, id, context, clock.millis()), GateNodes.DLQ_SINK);
  }
}
