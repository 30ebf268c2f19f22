package io.sluice.gate;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.trace.StageSpan;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.trace.TraceHeaders;
import io.sluice.schemas.trace.TraceParent;
import java.io.File;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * The gate's span of each decision, made where every decision leaves the gate: the gate node's
 * forwards to its sinks. Every step forwards through this context (the steps are handed it in
 * their {@code init}), so each record written to {@code ready}, a delay step, the dead letters or
 * the outcomes is one decision, whichever step made it, whether at once or later, when Redis
 * answered a batch ({@link PendingEvents}). Receipts are a copy of a decision, not one.
 *
 * <p>The span's parent is the record's {@code traceparent} (a producer's, checked and bounded by
 * {@link TraceParent#parse}; a malformed one starts a new trace, as does none), and the record
 * leaves carrying the span's own context as its only {@code traceparent}: the relay and the
 * dispatcher continue the trace from the gate. Attributes are what the record's headers already
 * say (decision, reason, tier, ETA, not-before) and its key, the tenant id: no payload.
 *
 * <p>Only made when tracing is on ({@link GateProcessor}); with it off the steps forward to Kafka
 * Streams' own context and nothing here runs.
 */
final class GateSpans<KF, VF> implements ProcessorContext<KF, VF> {
  // Generic only because Java allows no type variable bounded by an array (byte[]): the gate's is
  // GateSpans<byte[], Object>.
  private final ProcessorContext<KF, VF> context;
  private final StageTracer tracer;
  private final Clock clock;
  /** When the record being processed was taken up; -1 between records (a punctuation's forward). */
  private long began = -1;

  GateSpans(ProcessorContext<KF, VF> context, StageTracer tracer, Clock clock) {
    this.context = context;
    this.tracer = tracer;
    this.clock = clock;
  }

  /** Kafka Streams' own context behind {@code context}, which may be a {@link GateSpans}. */
  static <KF, VF> ProcessorContext<KF, VF> kafkaStreams(ProcessorContext<KF, VF> context) {
    return context instanceof GateSpans<KF, VF> spans ? spans.context : context;
  }

  /** The gate takes a record up: decisions forwarded until {@link #done} began now. */
  void taking() {
    began = clock.millis();
  }

  void done() {
    began = -1;
  }

  /** What a forward to {@code sink} decided, or null for a forward that is not a decision. */
  static String decision(String sink) {
    if (sink == null || sink.equals(GateNodes.RECEIPTS_SINK)) {
      return null;
    }
    if (sink.equals(GateNodes.READY_SINK) || sink.equals(GateNodes.READY_HIGH_SINK)) {
      return "admitted";
    }
    if (sink.equals(GateNodes.DLQ_SINK)) {
      return "dead";
    }
    if (sink.equals(GateNodes.OUTCOMES_SINK)) {
      return "duplicate";
    }
    return sink.startsWith("delay-sink-") ? "deferred" : null;
  }

  @Override
  public <K extends KF, V extends VF> void forward(Record<K, V> record, String childName) {
    String decision = decision(childName);
    context.forward(decision == null ? record : traced(record, decision), childName);
  }

  @Override
  public <K extends KF, V extends VF> void forward(Record<K, V> record) {
    context.forward(record);
  }

  private <K extends KF, V extends VF> Record<K, V> traced(Record<K, V> record, String decision) {
    long now = clock.millis();
    RecordHeaders headers = new RecordHeaders(record.headers().toArray());
    StageSpan span = tracer.begin("sluice.gate", TraceHeaders.parent(headers), began < 0 ? now : began)
        .set("sluice.decision", decision);
    if (record.key() instanceof byte[] key) {
      span.set("sluice.tenant", new String(key, UTF_8));
    }
    context.recordMetadata().ifPresent(m -> span.set("sluice.source", m.topic()));
    HeaderValues.last(headers, HeaderNames.TIER).ifPresent(t -> span.set("sluice.tier", t));
    Optional<String> reason = HeaderValues.last(headers, HeaderNames.REASON);
    reason.ifPresent(r -> span.set("sluice.reason", r));
    HeaderValues.lastLong(headers, HeaderNames.ETA).ifPresent(t -> span.set("sluice.eta", t));
    HeaderValues.lastLong(headers, HeaderNames.NOT_BEFORE).ifPresent(t -> span.set("sluice.not_before", t));
    if (decision.equals("dead")) {
      span.failed(reason.orElse("dead"));
    }
    span.end(now);
    TraceHeaders.carry(headers, span.context());
    return record.withHeaders(headers);
  }

  // Everything else is Kafka Streams' context as it is.

  @Override
  public String applicationId() {
    return context.applicationId();
  }

  @Override
  public TaskId taskId() {
    return context.taskId();
  }

  @Override
  public Optional<RecordMetadata> recordMetadata() {
    return context.recordMetadata();
  }

  @Override
  public Serde<?> keySerde() {
    return context.keySerde();
  }

  @Override
  public Serde<?> valueSerde() {
    return context.valueSerde();
  }

  @Override
  public File stateDir() {
    return context.stateDir();
  }

  @Override
  public StreamsMetrics metrics() {
    return context.metrics();
  }

  @Override
  public <S extends StateStore> S getStateStore(String name) {
    return context.getStateStore(name);
  }

  @Override
  public Cancellable schedule(Duration interval, PunctuationType type, Punctuator callback) {
    return context.schedule(interval, type, callback);
  }

  @Override
  public Cancellable schedule(Instant startTime, Duration interval, PunctuationType type,
      Punctuator callback) {
    return context.schedule(startTime, interval, type, callback);
  }

  @Override
  public void commit() {
    context.commit();
  }

  @Override
  public Map<String, Object> appConfigs() {
    return context.appConfigs();
  }

  @Override
  public Map<String, Object> appConfigsWithPrefix(String prefix) {
    return context.appConfigsWithPrefix(prefix);
  }

  @Override
  public long currentSystemTimeMs() {
    return context.currentSystemTimeMs();
  }

  @Override
  public long currentStreamTimeMs() {
    return context.currentStreamTimeMs();
  }
}
