package io.sluice.gate;

import java.time.Duration;
import java.util.ArrayList;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.trace.TraceParent;
import io.sluice.testkit.FakeClock;
import io.sluice.testkit.RecordingTracer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Each decision of the gate is one span in the trace of the producer's {@code traceparent} (a
 * malformed one starts a new trace and never reaches a later stage), and the record leaves
 * carrying the gate span's context for the relay and the dispatcher.
 */
class GateSpansTest {
  private static final String PRODUCERS = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-21T10:00:00Z"));
  private final RecordingTracer tracer = new RecordingTracer();
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestOutputTopic<byte[], byte[]> ready;
  private final List<TestOutputTopic<byte[], byte[]>> delays = new ArrayList<>();
  private TestOutputTopic<byte[], byte[]> dlq;

  @BeforeEach
  void start() {
    SluiceConfig config = ConfigLoader.parse(GateTopologyTest.CONFIG, Map.of());
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, GateListener.NONE, () -> config, TenantLookup.NONE, clock,
        SeenIds.NONE, OrderStore.NONE, tracer);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-spans-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    for (Duration step : config.ladder()) {
      delays.add(driver.createOutputTopic(topics.delay(step), new ByteArrayDeserializer(),
          new ByteArrayDeserializer()));
    }
    dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void close() {
    driver.close();
  }

  private void send(String tenant, String json, String... traceparents) {
    Headers headers = new RecordHeaders();
    for (String t : traceparents) {
      headers.add("traceparent", t.getBytes(UTF_8));
    }
    inbound.pipeInput(new TestRecord<>(tenant.getBytes(UTF_8), json.getBytes(UTF_8), headers));
  }

  private static String event(String id) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"t1\",\"provider\":\"payments-api\",\"payload\":{\"n\":1}}";
  }

  private static List<String> traceparents(TestRecord<byte[], byte[]> r) {
    return RecordingTracer.traceparents(r.headers());
  }

  @Test
  @DisplayName("an admitted event's span is the child of the producer's, and the record carries the span on")
  void admittedInTheProducersTrace() {
    send("t1", event("e1"), PRODUCERS);
    TestRecord<byte[], byte[]> admitted = ready.readRecord();
    RecordingTracer.Ended span = tracer.ended().get(0);
    assertEquals("sluice.gate", span.name());
    assertEquals(TraceParent.parse(PRODUCERS), span.parent());
    assertEquals("admitted", span.attribute("sluice.decision"));
    assertEquals("t1", span.attribute("sluice.tenant"));
    assertEquals("free", span.attribute("sluice.tier"));
    assertEquals(clock.millis(), span.attribute("sluice.eta"));
    assertEquals(List.of(span.context().header()), traceparents(admitted), "the gate's span, once");
    assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", span.context().traceId());
  }

  @Test
  @DisplayName("a deferred event's span says why and until when; its delay record carries the span")
  void deferredWithReasonAndNotBefore() {
    for (int i = 0; i < 3; i++) { // the free tier's bucket holds 2
      send("t1", event("e" + i), PRODUCERS);
    }
    TestRecord<byte[], byte[]> deferred = delays.stream().filter(t -> !t.isEmpty()).findFirst()
        .orElseThrow().readRecord();
    RecordingTracer.Ended span = tracer.ended().get(2);
    assertEquals("deferred", span.attribute("sluice.decision"));
    assertEquals("rate_limited", span.attribute("sluice.reason"));
    assertEquals(HeaderValues.lastLong(deferred.headers(), HeaderNames.NOT_BEFORE).orElseThrow(),
        span.attribute("sluice.not_before"));
    assertEquals(List.of(span.context().header()), traceparents(deferred));
  }

  @Test
  @DisplayName("a malformed traceparent is no parent: a new trace, and the bad header never leaves the gate")
  void malformedStartsANewTrace() {
    send("t1", event("e1"), "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01");
    TestRecord<byte[], byte[]> admitted = ready.readRecord();
    RecordingTracer.Ended span = tracer.ended().get(0);
    assertNull(span.parent());
    assertEquals(List.of(span.context().header()), traceparents(admitted));
  }

  @Test
  @DisplayName("an event without a traceparent starts a trace of its own")
  void noneStartsANewTrace() {
    send("t1", event("e1"));
    send("t1", event("e2"));
    List<RecordingTracer.Ended> spans = tracer.ended();
    assertNull(spans.get(0).parent());
    assertNotEquals(spans.get(0).context().traceId(), spans.get(1).context().traceId(), "one trace per event");
    assertEquals(List.of(spans.get(0).context().header()), traceparents(ready.readRecord()));
  }

  @Test
  @DisplayName("a dead letter's span is failed with its reason, in the producer's trace")
  void deadIsFailed() {
    send("t1", "{", PRODUCERS);
    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    RecordingTracer.Ended span = tracer.ended().get(0);
    assertEquals("dead", span.attribute("sluice.decision"));
    assertEquals("invalid", span.failed());
    assertEquals(TraceParent.parse(PRODUCERS), span.parent());
    assertTrue(traceparents(dead).contains(span.context().header()));
  }
}
