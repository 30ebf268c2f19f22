package io.sluice.topology.gate;

import io.sluice.config.SluiceConfig;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Finds the event's tier in configuration, never in the event (a producer cannot promote itself):
 * the tenant registry's record, else the file's entry, else the default tier.
 * A tenant that is neither listed nor covered by a default tier is dead with {@code unknown_tenant}.
 */
final class TierProcessor {
  private final Supplier<SluiceConfig> config;
  private final TenantLookup tenants;
  private final Clock clock;
  private final GateListener listener;
  private ProcessorContext<byte[], Object> context;

  TierProcessor(Supplier<SluiceConfig> config, TenantLookup tenants, Clock clock, GateListener listener) {
    this.config = config;
    this.tenants = tenants;
    this.clock = clock;
    this.listener = listener;
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /** The event's tier, or null when it was dead-lettered here. */
  String tier(Record<byte[], byte[]> record, WorkEvent event) {
    SluiceConfig current = config.get();
    String tenant = event.tenant();
    Optional<String> tier = current.tierOf(TenantRecord.effective(current, tenant, tenants.registered(tenant)));
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
