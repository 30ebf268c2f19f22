package io.sluice.relay;

import static io.sluice.relay.ScriptedRelay.paid;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.schemas.trace.TraceParent;
import io.sluice.testkit.RecordingTracer;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A record's time in the ladder is a span of its trace, and the record carries the span on. */
class RelaySpansTest {
  private static final String GATES = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private static List<String> traceparents(ProducerRecord<byte[], byte[]> r) {
    return RecordingTracer.traceparents(r.headers());
  }

  @Test
  @DisplayName("a release is a span from the record's write to the delay topic until it left, child of the gate's")
  void releaseIsASpanInTheRecordsTrace() {
    RecordingTracer tracer = new RecordingTracer();
    ScriptedRelay s = new ScriptedRelay(tracer);
    long now = s.clock.millis();
    Headers headers = paid(now - 10);
    headers.add("traceparent", GATES.getBytes(UTF_8));
    s.append("a", now - 1000, headers);
    s.run();

    ProducerRecord<byte[], byte[]> released = s.acknowledged().get(0);
    RecordingTracer.Ended span = tracer.ended().get(0);
    assertEquals("sluice.relay", span.name());
    assertEquals(TraceParent.parse(GATES), span.parent());
    assertEquals(now - 1000, span.start(), "from its write to the delay topic");
    assertEquals(now, span.end());
    assertEquals("released", span.attribute("sluice.hop"));
    assertEquals(ScriptedRelay.ONE_SECOND.topic(), span.attribute("sluice.from"));
    assertEquals(released.topic(), span.attribute("sluice.to"));
    assertEquals(now - 10, span.attribute("sluice.not_before"));
    assertEquals(10L, span.attribute("sluice.late_ms"));
    assertEquals(List.of(span.context().header()), traceparents(released), "the relay's span, once");
  }

  @Test
  @DisplayName("a record without a usable traceparent starts its own trace at the relay")
  void noParentStartsATrace() {
    RecordingTracer tracer = new RecordingTracer();
    ScriptedRelay s = new ScriptedRelay(tracer);
    long now = s.clock.millis();
    Headers headers = paid(now - 10);
    headers.add("traceparent", "junk".getBytes(UTF_8));
    s.append("a", now - 1000, headers);
    s.run();

    RecordingTracer.Ended span = tracer.ended().get(0);
    assertNull(span.parent());
    assertEquals(List.of(span.context().header()), traceparents(s.acknowledged().get(0)));
  }
}
