package io.sluice.gate;

import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.time.Clock;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Finds the event's tier in configuration, never in the event (a producer cannot promote itself):
 * the tenant registry's record, else the file's entry, else the default tier.
 * A tenant that is neither listed nor covered by a default tier is dead with {@code unknown_tenant}.
 */
final class TierStep {
  private final Clock clock;
  private final GateListener listener;
  private ProcessorContext<byte[], Object> context;

  TierStep(Clock clock, GateListener listener) {
    this.clock = clock;
    this.listener = listener;
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /**
   * The event's tier, or null when it was dead-lettered here.
   *
   * @param tier what the configuration says of the tenant's (registry record or file entry)
   */
  String tier(Record<byte[], byte[]> record, WorkEvent event, Optional<String> tier) {
    String tenant = event.tenant();
    if (tier.isEmpty()) {
      listener.dead(Reason.UNKNOWN_TENANT);
      context.forward(
          DeadLetters.of(record, event, record.value(), Reason.UNKNOWN_TENANT,
              "tenant '" + tenant + "' is not configured and there is no defaultTier",
              event.id(), context, clock.millis()),
          GateNodes.DLQ_SINK);
      return null;
    }
    return tier.get();
  }
}
