package io.sluice.app.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.sluice.config.TracingConfig;
import io.sluice.schemas.trace.StageSpan;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.trace.TraceParent;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The stages' tracer on the OpenTelemetry SDK, made only when {@code tracing.otlpEndpoint} is
 * set ({@link #start}: {@link StageTracer#OFF} otherwise, and no SDK object exists).
 *
 * <p>Export never blocks or fails a stage: spans end into a {@link BoundedSpanQueue} (at most
 * {@code tracing.maxQueue} waiting, the rest dropped and counted) in front of the SDK's batch
 * processor, whose own thread sends them over OTLP/HTTP (protobuf, the JDK's HTTP client) to
 * {@code <otlpEndpoint>/v1/traces}; a receiver that is down or slow costs spans, counted, never
 * an event. Sampling: a trace the producer started follows its {@code sampled} flag; a new one is
 * kept with {@code tracing.sampleRatio}.
 */
public final class OtelTracer implements StageTracer, AutoCloseable {
  /** How long one export may take before its spans count as failed. */
  static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);
  /** How often a batch goes out when fewer than a full batch wait. */
  static final Duration SCHEDULE_DELAY = Duration.ofMillis(500);

  private final SdkTracerProvider provider;
  private final Tracer tracer;

  private OtelTracer(SdkTracerProvider provider) {
    this.provider = provider;
    this.tracer = provider.get("io.sluice");
  }

  /** The tracer {@code config} asks for: {@link StageTracer#OFF} unless an endpoint is set. */
  public static StageTracer start(TracingConfig config, BoundedSpanQueue.Counts counts) {
    if (!config.enabled()) {
      return StageTracer.OFF;
    }
    String base = config.otlpEndpoint().orElseThrow().toString();
    SpanExporter otlp = OtlpHttpSpanExporter.builder()
        .setEndpoint(base.replaceAll("/+$", "") + "/v1/traces")
        .setTimeout(EXPORT_TIMEOUT)
        .build();
    BoundedSpanQueue queue = new BoundedSpanQueue(config.maxQueue(), counts);
    queue.handTo(BatchSpanProcessor.builder(queue.exporter(otlp))
        .setMaxQueueSize(config.maxQueue())
        .setMaxExportBatchSize(Math.min(512, config.maxQueue()))
        .setScheduleDelay(SCHEDULE_DELAY)
        .setExporterTimeout(EXPORT_TIMEOUT)
        .build());
    return new OtelTracer(SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(
            Attributes.of(AttributeKey.stringKey("service.name"), config.serviceName()))))
        .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(config.sampleRatio())))
        .addSpanProcessor(queue)
        .build());
  }

  @Override
  public boolean enabled() {
    return true;
  }

  @Override
  public StageSpan begin(String name, TraceParent parent, long startEpochMillis) {
    Context context = Context.root();
    if (parent != null) {
      context = context.with(Span.wrap(SpanContext.createFromRemoteParent(parent.traceId(),
          parent.parentId(), parent.sampled() ? TraceFlags.getSampled() : TraceFlags.getDefault(),
          TraceState.getDefault())));
    }
    Span span = tracer.spanBuilder(name)
        .setParent(context)
        .setSpanKind(kind(name))
        .setStartTimestamp(startEpochMillis, TimeUnit.MILLISECONDS)
        .startSpan();
    SpanContext own = span.getSpanContext();
    TraceParent ownParent = new TraceParent(own.getTraceId(), own.getSpanId(), own.isSampled());
    return new StageSpan() {
      @Override
      public TraceParent context() {
        return ownParent;
      }

      @Override
      public StageSpan set(String key, String value) {
        span.setAttribute(key, value);
        return this;
      }

      @Override
      public StageSpan set(String key, long value) {
        span.setAttribute(key, value);
        return this;
      }

      @Override
      public StageSpan failed(String description) {
        span.setStatus(StatusCode.ERROR, description);
        return this;
      }

      @Override
      public void end(long epochMillis) {
        span.end(epochMillis, TimeUnit.MILLISECONDS);
      }
    };
  }

  /** The call to a provider is a client span; every other stage is internal to Sluice. */
  private static SpanKind kind(String name) {
    return name.equals("sluice.provider.attempt") ? SpanKind.CLIENT : SpanKind.INTERNAL;
  }

  /** Sends what waits (for at most the export timeout), then stops. */
  @Override
  public void close() {
    provider.shutdown().join(EXPORT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }
}
