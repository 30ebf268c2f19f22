package io.sluice.app.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.sluice.config.TracingConfig;
import io.sluice.schemas.trace.StageTracer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Export never holds a stage: at most {@code max} spans wait, the rest are dropped and counted. */
class BoundedSpanQueueTest {
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final BoundedSpanQueue.Counts counts = new BoundedSpanQueue.Counts() {
    @Override
    public void dropped(long spans) {
      dropped.addAndGet(spans);
    }

    @Override
    public void failed(long spans) {
      failed.addAndGet(spans);
    }
  };

  /** A processor that keeps what it is handed and exports only when told. */
  private static final class Held implements SpanProcessor {
    final List<ReadableSpan> spans = new ArrayList<>();

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
      spans.add(span);
    }

    @Override
    public boolean isEndRequired() {
      return true;
    }
  }

  private static Tracer tracer(SpanProcessor processor, Sampler sampler) {
    return SdkTracerProvider.builder().setSampler(sampler).addSpanProcessor(processor).build().get("test");
  }

  @Test
  @DisplayName("beyond max waiting spans, a span is dropped and counted; one taken by the exporter makes room")
  void dropsBeyondMaxAndCounts() {
    BoundedSpanQueue queue = new BoundedSpanQueue(2, counts);
    Held held = new Held();
    queue.handTo(held);
    Tracer tracer = tracer(queue, Sampler.alwaysOn());
    for (int i = 0; i < 3; i++) {
      tracer.spanBuilder("s" + i).startSpan().end();
    }
    assertEquals(2, held.spans.size());
    assertEquals(1, dropped.get());

    List<SpanData> batch = held.spans.stream().map(ReadableSpan::toSpanData).toList();
    queue.exporter(ok()).export(batch);
    assertEquals(0, queue.waiting());
    tracer.spanBuilder("s3").startSpan().end();
    assertEquals(3, held.spans.size(), "room again");
    assertEquals(1, dropped.get());
  }

  @Test
  @DisplayName("a batch the receiver did not take is counted failed")
  void failedExportsAreCounted() {
    BoundedSpanQueue queue = new BoundedSpanQueue(10, counts);
    Held held = new Held();
    queue.handTo(held);
    tracer(queue, Sampler.alwaysOn()).spanBuilder("s").startSpan().end();
    queue.exporter(failing()).export(held.spans.stream().map(ReadableSpan::toSpanData).toList());
    assertEquals(1, failed.get());
  }

  @Test
  @DisplayName("a span not sampled is never queued, so it takes no room")
  void unsampledTakesNoRoom() {
    BoundedSpanQueue queue = new BoundedSpanQueue(1, counts);
    Held held = new Held();
    queue.handTo(held);
    Tracer tracer = tracer(queue, Sampler.alwaysOff());
    for (int i = 0; i < 5; i++) {
      tracer.spanBuilder("s" + i).startSpan().end();
    }
    assertEquals(0, queue.waiting());
    assertEquals(0, dropped.get());
  }

  @Test
  @DisplayName("tracing off makes no SDK object: the roles get StageTracer.OFF")
  void offIsTheNoOpTracer() {
    assertSame(StageTracer.OFF, OtelTracer.start(TracingConfig.OFF, counts));
  }

  private static SpanExporter ok() {
    return exporter(CompletableResultCode.ofSuccess());
  }

  private static SpanExporter failing() {
    return exporter(CompletableResultCode.ofFailure());
  }

  private static SpanExporter exporter(CompletableResultCode result) {
    return new SpanExporter() {
      @Override
      public CompletableResultCode export(Collection<SpanData> spans) {
        return result;
      }

      @Override
      public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
      }

      @Override
      public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
      }
    };
  }
}
