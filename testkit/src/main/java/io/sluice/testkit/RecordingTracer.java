package io.sluice.testkit;

import io.sluice.schemas.trace.StageSpan;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.trace.TraceParent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link StageTracer} that keeps every span ended, for tests of what a stage traces: its parent,
 * its times and its attributes. Ids are counted, not random: a new trace is
 * {@code 000…0001}, {@code 000…0002}, …, a span id {@code 000…0001}, … in the order begun.
 */
public final class RecordingTracer implements StageTracer {
  /** One ended span. {@code parent} null: the root of a new trace. */
  public record Ended(String name, TraceParent parent, TraceParent context, long start, long end,
      Map<String, Object> attributes, String failed) {
    public Object attribute(String key) {
      return attributes.get(key);
    }
  }

  private final AtomicLong traces = new AtomicLong();
  private final AtomicLong spans = new AtomicLong();
  private final List<Ended> ended = new ArrayList<>();

  @Override
  public boolean enabled() {
    return true;
  }

  @Override
  public StageSpan begin(String name, TraceParent parent, long startEpochMillis) {
    String traceId = parent != null ? parent.traceId() : "%032x".formatted(traces.incrementAndGet());
    TraceParent context = new TraceParent(traceId, "%016x".formatted(spans.incrementAndGet()),
        parent == null || parent.sampled());
    Map<String, Object> attributes = new LinkedHashMap<>();
    String[] failed = new String[1];
    return new StageSpan() {
      @Override
      public TraceParent context() {
        return context;
      }

      @Override
      public StageSpan set(String key, String value) {
        attributes.put(key, value);
        return this;
      }

      @Override
      public StageSpan set(String key, long value) {
        attributes.put(key, value);
        return this;
      }

      @Override
      public StageSpan failed(String description) {
        failed[0] = description;
        return this;
      }

      @Override
      public void end(long epochMillis) {
        synchronized (ended) {
          ended.add(new Ended(name, parent, context, startEpochMillis, epochMillis,
              Map.copyOf(attributes), failed[0]));
        }
      }
    };
  }

  /** Every {@code traceparent} value of {@code headers}, in order (a record should carry one). */
  public static List<String> traceparents(Headers headers) {
    List<String> values = new ArrayList<>();
    for (Header h : headers.headers(TraceParent.HEADER)) {
      values.add(h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
    }
    return values;
  }

  /** Every span ended so far, in the order they ended. */
  public List<Ended> ended() {
    synchronized (ended) {
      return List.copyOf(ended);
    }
  }
}
