package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.trace.StageSpan;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.trace.TraceHeaders;
import io.sluice.schemas.trace.TraceParent;
import java.time.Clock;

/**
 * The dispatcher's spans of one event, in the trace its {@code sluice.ready} record carries
 * ({@code traceparent}, the gate's or the relay's span): its wait in the dispatcher, each call to
 * its provider, and its outcome.
 *
 * <ul>
 *   <li>{@code sluice.dispatcher.wait}: from the ready record's timestamp (when the gate admitted
 *       it or the relay released it) to its call, with why it waited ({@code sluice.wait.reason}):
 *       the {@code sluice-reason} of its last deferral when it has one (it came back from the
 *       ladder: {@code rate_limited}, {@code provider_429}, {@code parked}, {@code overflow}, ...),
 *       else {@code queued} (its turn in its lane: a leak slot, its tier's share, maxInFlight).
 *   <li>{@code sluice.provider.attempt}: the call, a client span whose context goes to the
 *       provider as its {@code traceparent}, with the attempt number and the HTTP status (or why
 *       there was none: {@code timeout}, {@code connect_error}, ...).
 *   <li>{@code sluice.outcome}: what the call settled: {@code delivered}, {@code retry} or
 *       {@code dead}, with the reason.
 * </ul>
 *
 * <p>With tracing off ({@link StageTracer#OFF}) nothing here reads a header or makes an object:
 * {@link #attempt} answers {@link Attempt#NONE}.
 */
public final class DispatchSpans {
  /** No spans. */
  public static final DispatchSpans OFF = new DispatchSpans(StageTracer.OFF, Clock.systemUTC());

  private final StageTracer tracer;
  private final Clock clock;

  public DispatchSpans(StageTracer tracer, Clock clock) {
    this.tracer = tracer;
    this.clock = clock;
  }

  /** One call's span, open while the call is. */
  public interface Attempt {
    /** What goes to the provider as {@code traceparent}; null when tracing is off. */
    String traceparent();

    /** The call came back with {@code result}. */
    void ended(ProviderResult result);

    Attempt NONE = new Attempt() {
      @Override
      public String traceparent() {
        return null;
      }

      @Override
      public void ended(ProviderResult result) {}
    };
  }

  /**
   * Ends the entry's wait in the dispatcher and begins its call to {@code lane}'s provider: call
   * it as the call starts.
   */
  public Attempt attempt(DispatchEntry entry, String lane) {
    if (!tracer.enabled()) {
      return Attempt.NONE;
    }
    long now = clock.millis();
    TraceParent parent = TraceHeaders.parent(entry.headers());
    StageSpan wait = tagged(tracer.begin("sluice.dispatcher.wait", parent,
        entry.readyAt() >= 0 ? Math.min(entry.readyAt(), now) : now), entry)
        .set("sluice.lane", lane)
        .set("sluice.wait.reason", HeaderValues.last(entry.headers(), HeaderNames.REASON).orElse("queued"));
    wait.end(now);
    StageSpan call = tagged(tracer.begin("sluice.provider.attempt", parent, now), entry)
        .set("sluice.lane", lane)
        .set("sluice.attempt", entry.attempts() + 1);
    TraceParent context = call.context();
    return new Attempt() {
      @Override
      public String traceparent() {
        return context == null ? null : context.header();
      }

      @Override
      public void ended(ProviderResult result) {
        if (result instanceof ProviderResult.Answered a) {
          call.set("http.response.status_code", a.status());
          if (a.status() >= 400) {
            call.failed("status " + a.status());
          }
        } else {
          call.set("sluice.result", kind(result)).failed(kind(result));
        }
        call.end(clock.millis());
      }
    };
  }

  /** The event's outcome as its call settled it. */
  public void outcome(DispatchEntry entry, Verdict verdict) {
    if (!tracer.enabled()) {
      return;
    }
    long now = clock.millis();
    StageSpan span = tagged(tracer.begin("sluice.outcome", TraceHeaders.parent(entry.headers()), now), entry);
    if (verdict instanceof Verdict.Delivered d) {
      span.set("sluice.outcome", "delivered").set("http.response.status_code", d.status());
    } else if (verdict instanceof Verdict.Retry r) {
      span.set("sluice.outcome", "retry").set("sluice.reason", r.reason().code())
          .set("sluice.wait_ms", r.waitMillis());
    } else {
      Verdict.Dead dead = (Verdict.Dead) verdict;
      span.set("sluice.outcome", "dead").set("sluice.reason", dead.reason().code())
          .failed(dead.reason().code());
    }
    span.end(now);
  }

  private static StageSpan tagged(StageSpan span, DispatchEntry entry) {
    if (entry.key() != null) {
      span.set("sluice.tenant", new String(entry.key(), UTF_8));
    }
    if (entry.event() != null) {
      span.set("sluice.provider", entry.event().provider());
    }
    return span;
  }

  private static String kind(ProviderResult result) {
    if (result instanceof ProviderResult.TimedOut) {
      return "timeout";
    } else if (result instanceof ProviderResult.ConnectFailed) {
      return "connect_error";
    } else if (result instanceof ProviderResult.Unsendable) {
      return "unsendable";
    } else if (result instanceof ProviderResult.CredentialUnavailable) {
      return "credential_unavailable";
    } else if (result instanceof ProviderResult.Unauthorized) {
      return "unauthorized";
    }
    return "answered";
  }
}
