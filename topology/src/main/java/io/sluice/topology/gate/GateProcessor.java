package io.sluice.topology.gate;

import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The gate's one processor node: strip, validate, resolve the tier and limit, as four steps of
 * one node rather than four nodes. Each step is still its own processor class (read them for
 * what they decide), but a step's forward to the next is a plain method call: Kafka Streams
 * spends, for every forward between nodes, a new record context, a latency sensor and a metrics
 * update, which cost the gate more than some of its steps. Forwards to the sinks (ready, the
 * ladder, the dead letters) go to Kafka Streams as before, from this node.
 *
 * <p>Records from {@code regate} (Sluice's own returns) skip the strip, as they skipped its node.
 */
final class GateProcessor implements Processor<byte[], byte[], byte[], Object> {
  private final String regate;
  private final StripSluiceHeadersProcessor strip = new StripSluiceHeadersProcessor();
  private final ValidateProcessor validate;
  private final TierProcessor tier;
  private final LimitProcessor limit;
  private ProcessorContext<byte[], Object> context;

  GateProcessor(String regate, ValidateProcessor validate, TierProcessor tier, LimitProcessor limit) {
    this.regate = regate;
    this.validate = validate;
    this.tier = tier;
    this.limit = limit;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
    limit.init(context);
    ProcessorContext steps = new Steps(context);
    tier.init(steps);
    validate.init(steps);
    strip.init(steps);
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    boolean fromRegate = context.recordMetadata().map(m -> regate.equals(m.topic())).orElse(false);
    if (fromRegate) {
      validate.process(record);
    } else {
      strip.process(record);
    }
  }

  @Override
  public void close() {
    limit.close();
  }

  /** The context the first three steps see: a forward to the next step calls it. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private final class Steps implements ProcessorContext {
    private final ProcessorContext<byte[], Object> node;

    Steps(ProcessorContext<byte[], Object> node) {
      this.node = node;
    }

    @Override
    public void forward(Record record) {
      throw new UnsupportedOperationException("every step names where its record goes");
    }

    @Override
    public void forward(Record record, String childName) {
      switch (childName) {
        case GateNodes.VALIDATE -> validate.process(record);
        case GateNodes.RESOLVE_TIER -> tier.process(record);
        case GateNodes.LIMIT -> limit.process(record);
        default -> node.forward(record, childName);
      }
    }

    @Override
    public String applicationId() {
      return node.applicationId();
    }

    @Override
    public TaskId taskId() {
      return node.taskId();
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
      return node.recordMetadata();
    }

    @Override
    public Serde<?> keySerde() {
      return node.keySerde();
    }

    @Override
    public Serde<?> valueSerde() {
      return node.valueSerde();
    }

    @Override
    public File stateDir() {
      return node.stateDir();
    }

    @Override
    public StreamsMetrics metrics() {
      return node.metrics();
    }

    @Override
    public StateStore getStateStore(String name) {
      return node.getStateStore(name);
    }

    @Override
    public Cancellable schedule(Duration interval, PunctuationType type, Punctuator callback) {
      return node.schedule(interval, type, callback);
    }

    @Override
    public Cancellable schedule(Instant startTime, Duration interval, PunctuationType type, Punctuator callback) {
      return node.schedule(startTime, interval, type, callback);
    }

    @Override
    public void commit() {
      node.commit();
    }

    @Override
    public Map<String, Object> appConfigs() {
      return node.appConfigs();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
      return node.appConfigsWithPrefix(prefix);
    }

    @Override
    public long currentSystemTimeMs() {
      return node.currentSystemTimeMs();
    }

    @Override
    public long currentStreamTimeMs() {
      return node.currentStreamTimeMs();
    }
  }
}
