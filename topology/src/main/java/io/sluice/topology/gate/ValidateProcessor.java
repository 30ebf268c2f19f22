package io.sluice.topology.gate;

import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.validation.EventRules;
import io.sluice.schemas.validation.EventValidator;
import io.sluice.schemas.validation.ValidationResult;
import java.time.Clock;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Parses and checks each inbound value. Bad input never stops the stream: malformed JSON, a
 * missing or malformed field, an unknown provider, a cost above the provider's maximum, an
 * oversize payload or a passed deadline each go to the dead-letter topic with a reason, a detail
 * and the original bytes, and the next record is processed.
 */
final class ValidateProcessor implements Processor<byte[], byte[], byte[], Object> {
  private final Clock clock;
  private final GateListener listener;
  private final EventValidator validator = new EventValidator();
  private final Supplier<SluiceConfig> config;
  /** The rules of the configuration last seen; rebuilt when a reload replaces it. */
  private SluiceConfig rulesOf;
  private EventRules rules;
  private ProcessorContext<byte[], Object> context;

  ValidateProcessor(Supplier<SluiceConfig> config, Clock clock, GateListener listener) {
    this.config = config;
    this.clock = clock;
    this.listener = listener;
  }

  @Override
  public void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    byte[] raw = record.value() == null ? new byte[0] : record.value();
    SluiceConfig current = config.get();
    if (current != rulesOf) {
      rules = new EventRules(current, validator);
      rulesOf = current;
    }
    // An oversize value is never parsed.
    var oversize = rules.checkSize(raw.length);
    if (oversize.isPresent()) {
      dead(record, raw, oversize.get().reason(), oversize.get().detail(), null);
      return;
    }
    // The payload stays bytes: every sink writes the value as it came.
    ValidationResult parsed = validator.validateLeavingPayload(raw);
    if (parsed instanceof ValidationResult.Invalid invalid) {
      dead(record, raw, invalid.reason(), invalid.detail(), null);
      return;
    }
    WorkEvent event = ((ValidationResult.Valid) parsed).event();
    ValidationResult checked = rules.check(event, raw.length);
    if (checked instanceof ValidationResult.Invalid invalid) {
      dead(record, raw, invalid.reason(), invalid.detail(), event.id());
      return;
    }
    long now = clock.millis();
    if (event.deadline() != null && event.deadline().toEpochMilli() < now) {
      dead(record, raw, Reason.EXPIRED, "deadline " + event.deadline() + " passed before the event was admitted", event.id());
      return;
    }
    context.forward(record.withValue((Object) new GateEvent(event, raw, null)), GateNodes.RESOLVE_TIER);
  }

  private void dead(Record<byte[], byte[]> record, byte[] raw, Reason reason, String detail, String id) {
    listener.dead(reason);
    context.forward(DeadLetters.of(record, raw, reason, detail, id, context, clock.millis()), GateNodes.DLQ_SINK);
  }
}
