package io.sluice.dispatcher.dispatch;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.trace.TraceParent;
import io.sluice.testkit.FakeClock;
import io.sluice.testkit.RecordingTracer;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The dispatcher's spans of an event: its wait, each call, its outcome, in the record's trace. */
class DispatchSpansTest {
  private static final String RELAYS = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-21T10:00:00Z"));
  private final RecordingTracer tracer = new RecordingTracer();
  private final DispatchSpans spans = new DispatchSpans(tracer, clock);

  private DispatchEntry entry(String reason, long readyAt) {
    Headers headers = new RecordHeaders();
    headers.add("traceparent", RELAYS.getBytes(UTF_8));
    if (reason != null) {
      headers.add("sluice-reason", reason.getBytes(UTF_8));
    }
    WorkEvent event = new WorkEvent("e1", "acme", "payments-api", 1, null, null, null, Map.of());
    return new DispatchEntry(new TopicPartition("sluice.ready", 0), 7, 1, "acme".getBytes(UTF_8),
        new byte[0], headers, event, "free", 1, null, readyAt);
  }

  @Test
  @DisplayName("the wait runs from the ready record's time to the call, saying why; the call is the provider's parent")
  void waitThenAttempt() {
    DispatchEntry entry = entry("provider_429", clock.millis() - 1500);
    DispatchSpans.Attempt attempt = spans.attempt(entry, "payments-api");
    clock.advance(java.time.Duration.ofMillis(40));
    attempt.ended(new ProviderResult.Answered(503, null));

    RecordingTracer.Ended wait = tracer.ended().get(0);
    assertEquals("sluice.dispatcher.wait", wait.name());
    assertEquals(TraceParent.parse(RELAYS), wait.parent());
    assertEquals(1500, wait.end() - wait.start());
    assertEquals("provider_429", wait.attribute("sluice.wait.reason"));
    RecordingTracer.Ended call = tracer.ended().get(1);
    assertEquals("sluice.provider.attempt", call.name());
    assertEquals(TraceParent.parse(RELAYS), call.parent());
    assertEquals(call.context().header(), attempt.traceparent(), "what the provider gets");
    assertEquals(503L, call.attribute("http.response.status_code"));
    assertEquals(2L, call.attribute("sluice.attempt"));
    assertEquals("status 503", call.failed());
    assertEquals(40, call.end() - call.start());
    assertEquals("acme", call.attribute("sluice.tenant"));
    assertEquals("payments-api", call.attribute("sluice.provider"));
    assertNull(call.attribute("payload"), "no payload in any attribute: " + call.attributes());
  }

  @Test
  @DisplayName("an event that only waited its turn in its lane waited 'queued'; a call without an answer says why")
  void queuedAndNoAnswer() {
    DispatchSpans.Attempt attempt = spans.attempt(entry(null, clock.millis()), "payments-api");
    attempt.ended(new ProviderResult.TimedOut("5 s"));
    assertEquals("queued", tracer.ended().get(0).attribute("sluice.wait.reason"));
    assertEquals("timeout", tracer.ended().get(1).attribute("sluice.result"));
  }

  @Test
  @DisplayName("the outcome is a span of the trace: delivered with its status, dead failed with its reason")
  void outcomes() {
    spans.outcome(entry(null, 0), new Verdict.Delivered(200));
    spans.outcome(entry(null, 0), new Verdict.Dead(Reason.MAX_ATTEMPTS, "8 attempts", 8));
    RecordingTracer.Ended delivered = tracer.ended().get(0);
    assertEquals("delivered", delivered.attribute("sluice.outcome"));
    assertEquals(200L, delivered.attribute("http.response.status_code"));
    assertEquals(TraceParent.parse(RELAYS), delivered.parent());
    RecordingTracer.Ended dead = tracer.ended().get(1);
    assertEquals("dead", dead.attribute("sluice.outcome"));
    assertEquals("max_attempts", dead.failed());
  }

  @Test
  @DisplayName("with tracing off nothing is made and no traceparent goes to the provider")
  void offMakesNothing() {
    assertSame(DispatchSpans.Attempt.NONE, DispatchSpans.OFF.attempt(entry(null, 0), "payments-api"));
    assertNull(DispatchSpans.OFF.attempt(entry(null, 0), "payments-api").traceparent());
  }
}
