package io.sluice.app.tracing;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the spans waiting for export to {@code max}, and counts what it drops, so the export never
 * holds up a stage and never grows without bound. The batch processor behind it has a queue of
 * the same size and drops silently when full; this counts a span in when it is handed on and out
 * when the exporter takes it ({@link #exporter}), and drops (counted) a span that would go over.
 * A span ended while the queue is full is lost, never waited for: the pipeline goes first.
 *
 * <p>Thread-safe: every stage thread ends spans here.
 */
public final class BoundedSpanQueue implements SpanProcessor {
  /** What happened to the spans, for metrics. Thread-safe implementations only. */
  public interface Counts {
    /** Spans dropped because {@code max} were waiting for export. */
    void dropped(long spans);

    /** Spans the receiver did not take (an error, a timeout, no receiver). */
    void failed(long spans);

    Counts NONE = new Counts() {
      @Override
      public void dropped(long spans) {}

      @Override
      public void failed(long spans) {}
    };
  }

  private final long max;
  private final Counts counts;
  private final AtomicLong waiting = new AtomicLong();
  private SpanProcessor delegate;

  BoundedSpanQueue(long max, Counts counts) {
    this.max = max;
    this.counts = counts;
  }

  /** The processor this hands its spans to (a batch processor over {@link #exporter}). */
  void handTo(SpanProcessor processor) {
    this.delegate = processor;
  }

  /** {@code exporter}, counting each batch it takes out of the queue and each it fails to send. */
  SpanExporter exporter(SpanExporter exporter) {
    return new SpanExporter() {
      @Override
      public CompletableResultCode export(Collection<SpanData> spans) {
        waiting.addAndGet(-spans.size());
        CompletableResultCode result = exporter.export(spans);
        result.whenComplete(() -> {
          if (!result.isSuccess()) {
            counts.failed(spans.size());
          }
        });
        return result;
      }

      @Override
      public CompletableResultCode flush() {
        return exporter.flush();
      }

      @Override
      public CompletableResultCode shutdown() {
        return exporter.shutdown();
      }
    };
  }

  /** Spans handed on and not yet taken by the exporter. */
  long waiting() {
    return waiting.get();
  }

  @Override
  public void onStart(Context parentContext, ReadWriteSpan span) {}

  @Override
  public boolean isStartRequired() {
    return false;
  }

  @Override
  public void onEnd(ReadableSpan span) {
    if (!span.getSpanContext().isSampled()) {
      return; // never exported, never queued
    }
    if (waiting.incrementAndGet() > max) {
      waiting.decrementAndGet();
      counts.dropped(1);
      return;
    }
    delegate.onEnd(span);
  }

  @Override
  public boolean isEndRequired() {
    return true;
  }

  @Override
  public CompletableResultCode shutdown() {
    return delegate.shutdown();
  }

  @Override
  public CompletableResultCode forceFlush() {
    return delegate.forceFlush();
  }
}
