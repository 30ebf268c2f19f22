package io.sluice.gate;

import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.trace.StageTracer;
import java.time.Clock;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The gate's one processor node: strip, validate, resolve the tier, suppress a repeated id
 * ({@link DedupStep}), give an ordered event its turn in its key ({@link OrderStep}) and wait for
 * the time the event asked for ({@link ScheduleStep}), each inbound only, and limit, as steps of one node rather than nodes. Each step is its own class (read them for what they decide);
 * a step hands its result to the next as a return value, not as a record: Kafka Streams spends,
 * for every forward between nodes, a new record context, a latency sensor and a metrics update,
 * and every {@link Record#withValue} copies the record's headers, which cost the gate more than
 * some of its steps. A step that dead-letters the event forwards the dead letter to the sink
 * itself and answers null. Forwards to the sinks (ready, the ladder, the dead letters) go to
 * Kafka Streams from this node.
 *
 * <p>Every step of one event reads one configuration snapshot and one lookup of its tenant (the
 * registry's record over the file's entry): a reload between two steps never mixes files, and
 * the tenant is looked up once.
 *
 * <p>Records from {@code regate} (Sluice's own returns) skip the strip, as they skipped its node.
 */
final class GateProcessor implements Processor<byte[], byte[], byte[], Object> {
  private final String regate;
  private final Supplier<SluiceConfig> live;
  private final TenantLookup tenants;
  private final ValidateStep validate;
  private final TierStep tier;
  private final ScheduleStep schedule;
  private final DedupStep dedup;
  private final OrderStep order;
  private final LimitStep limit;
  private final StageTracer tracer;
  private final Clock clock;
  private ProcessorContext<byte[], Object> context;
  /** The decisions' spans, when tracing is on; null when it is off. */
  private GateSpans<byte[], Object> spans;

  GateProcessor(String regate, Supplier<SluiceConfig> live, TenantLookup tenants, ValidateStep validate,
      TierStep tier, ScheduleStep schedule, DedupStep dedup, OrderStep order, LimitStep limit,
      StageTracer tracer, Clock clock) {
    this.tracer = tracer;
    this.clock = clock;
    this.regate = regate;
    this.live = live;
    this.tenants = tenants;
    this.validate = validate;
    this.tier = tier;
    this.schedule = schedule;
    this.dedup = dedup;
    this.order = order;
    this.limit = limit;
  }

  @Override
  public void init(ProcessorContext<byte[], Object> kafkaStreams) {
    // With tracing on, every step forwards through the decisions' spans (GateSpans).
    spans = tracer.enabled() ? new GateSpans<>(kafkaStreams, tracer, clock) : null;
    ProcessorContext<byte[], Object> context = spans == null ? kafkaStreams : spans;
    this.context = context;
    limit.init(context);
    tier.init(context);
    schedule.init(context);
    dedup.init(context);
    order.init(context);
    validate.init(context);
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    if (spans == null) {
      decide(record);
      return;
    }
    spans.taking();
    try {
      decide(record);
    } finally {
      spans.done();
    }
  }

  private void decide(Record<byte[], byte[]> record) {
    var metadata = context.recordMetadata();
    boolean fromRegate = metadata.isPresent() && regate.equals(metadata.get().topic());
    Record<byte[], byte[]> in = fromRegate ? record : StripHeadersStep.strip(record);
    SluiceConfig config = live.get();
    WorkEvent event = validate.validate(in, !fromRegate, config);
    if (event == null) {
      return;
    }
    String tenant = event.tenant();
    TenantConfig entry = TenantRecord.effective(config, tenant, tenants.registered(tenant));
    String resolved = tier.tier(in, event, config.tierOf(entry));
    if (resolved == null) {
      order.deadHere(in, event, config); // back from the ladder with a turn, its tenant removed
      return;
    }
    // The time an event asked for and its id are judged on its first sight only: from regate it
    // is due (the relay let it out at its time) or went round for its quota, and it is its own
    // return, never a repeat. An event refused its time is not remembered (its corrected resend
    // goes), and takes no turn in its ordering key: neither does a repeat.
    if (!fromRegate) {
      DeliveryTime.Verdict when = schedule.verdict(event, config);
      boolean refused = when instanceof DeliveryTime.Refused;
      if (!refused && !dedup.first(in, event, resolved, config, ScheduleStep.status(when))) {
        return;
      }
      if (!refused && !order.turn(in, event, config)) {
        return;
      }
      if (!schedule.dueNow(in, event, resolved, when)) {
        return;
      }
    }
    limit.limit(in, new GateEvent(event, in.value(), resolved), config, entry);
  }

  @Override
  public void close() {
    limit.close();
  }
}
