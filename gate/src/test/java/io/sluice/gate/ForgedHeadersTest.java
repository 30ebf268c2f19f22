package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.FakeClock;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.header.Header;
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
import org.junit.jupiter.api.Test;

/**
 * Producers write {@code inbound}, so every {@code sluice-*} header there is a forgery: the gate
 * strips them all before anything reads one, and what leaves the gate carries only the headers
 * Sluice wrote itself. One test per header Sluice reads (attempt, ticket, paid, return-to,
 * not-before, event-id, tier, first-seen), each failing if that forgery got through. The same runs
 * against a real broker in {@code GateIT}.
 */
class ForgedHeadersTest {
  private static final Instant START = Instant.parse("2026-11-21T10:00:00Z");
  private final FakeClock clock = new FakeClock(START);
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clock::micros);
  private TopologyTestDriver driver;
  private TestInputTopic<byte[], byte[]> inbound;
  private TestOutputTopic<byte[], byte[]> ready;
  private TestOutputTopic<byte[], byte[]> dlq;
  private Topics topics;

  @BeforeEach
  void start() {
    SluiceConfig config = ConfigLoader.parse(GateTopologyTest.CONFIG, Map.of());
    topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    GateWiring wiring = new GateWiring(config, store, new RedisCircuit(1000, 1000, s -> {}),
        () -> 1.0, clock, clock::nanos, GateListener.NONE);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gate-forged-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(GateTopology.build(wiring), props);
    inbound = driver.createInputTopic(topics.inbound(), new ByteArraySerializer(), new ByteArraySerializer());
    ready = driver.createOutputTopic(topics.ready(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    dlq = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void close() {
    driver.close();
  }

  private static String event(String id, String tenant, String provider) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
        + "\",\"payload\":{\"n\":1}}";
  }

  private static Headers forged(String... namesAndValues) {
    Headers headers = new RecordHeaders();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.add(namesAndValues[i], bytes(namesAndValues[i + 1]));
    }
    return headers;
  }

  private void send(String tenant, String json, Headers headers) {
    inbound.pipeInput(new TestRecord<>(bytes(tenant), bytes(json), headers));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String header(TestRecord<byte[], byte[]> r, String name) {
    return HeaderValues.last(r.headers(), name).orElse(null);
  }

  /** The sluice-* names on a record, each once, in order. */
  private static List<String> sluiceNames(TestRecord<byte[], byte[]> r) {
    List<String> names = new ArrayList<>();
    for (Header h : r.headers()) {
      if (HeaderNames.isSluice(h.key()) && !names.contains(h.key())) {
        names.add(h.key());
      }
    }
    return names;
  }

  private static void assertOnlySluiceHeaders(Set<String> written, TestRecord<byte[], byte[]> r) {
    for (String name : sluiceNames(r)) {
      assertTrue(written.contains(name), "a " + name + " header the gate did not write: " + r.headers());
    }
    for (Header h : r.headers()) {
      if (HeaderNames.isSluice(h.key())) {
        assertEquals(1, count(r.headers(), h.key()), "one value of " + h.key() + ": " + r.headers());
      }
    }
  }

  private static int count(Headers headers, String name) {
    int n = 0;
    for (Header h : headers.headers(name)) {
      n++;
    }
    return n;
  }

  /** What the gate writes on an admitted event. */
  private static final Set<String> ADMITTED = Set.of(HeaderNames.TIER, HeaderNames.FIRST_SEEN,
      HeaderNames.ETA);
  /** What the gate writes on a dead letter of an inbound record. */
  private static final Set<String> DEAD = Set.of(HeaderNames.REASON, HeaderNames.DETAIL,
      HeaderNames.SOURCE, HeaderNames.FIRST_SEEN, HeaderNames.EVENT_ID);

  @Test
  void shouldDeliverAnEventWithAForgedAttemptAsItsFirstAttempt() {
    send("acme", event("e1", "acme", "payments-api"), forged(HeaderNames.ATTEMPT, "99"));
    send("acme", event("e2", "acme", "payments-api"), forged(HeaderNames.ATTEMPT, "-5"));
    send("acme", event("e3", "acme", "nope-api"), forged(HeaderNames.ATTEMPT, "99"));

    for (TestRecord<byte[], byte[]> out : ready.readRecordsToList()) {
      // The dispatcher reads a missing sluice-attempt as 0 prior failures: this call is attempt 1.
      assertNull(header(out, HeaderNames.ATTEMPT), "a forged attempt reached the dispatcher");
      assertOnlySluiceHeaders(ADMITTED, out);
    }
    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    assertNull(DeadLetter.fromHeaders(dead.headers()).attempt(), "no provider attempt was made");
    assertOnlySluiceHeaders(DEAD, dead);
  }

  @Test
  void shouldCheckTheHorizonForAnInboundEventWithAForgedTicket() {
    // free tier, capacity 2 at 1/s, horizon 10 s: 2 admitted and 10 reserved fill the horizon.
    for (int i = 0; i < 12; i++) {
      send("t1", event("e" + i, "t1", "payments-api"), new RecordHeaders());
    }
    long forgedTicket = clock.millis() + 1000;
    send("t1", event("forger", "t1", "payments-api"), forged(HeaderNames.TICKET, Long.toString(forgedTicket)));

    var ones = driver.createOutputTopic(topics.delay(Duration.ofSeconds(1)), new ByteArrayDeserializer(),
        new ByteArrayDeserializer()).readRecordsToList();
    TestRecord<byte[], byte[]> forger = ones.get(ones.size() - 1);
    assertTrue(new String(forger.value(), StandardCharsets.UTF_8).contains("forger"));
    // A believed ticket would have been charged past the horizon (paid, not-before 11 s away).
    assertEquals("false", header(forger, HeaderNames.PAID), "queued uncharged, as any event past the horizon");
    assertEquals(topics.regate(), header(forger, HeaderNames.RETURN_TO));
    assertEquals(Long.toString(clock.millis() + 1000), header(forger, HeaderNames.TICKET),
        "the ticket is the gate's own place in line");
    assertEquals(10, driver.createOutputTopic(topics.delay(Duration.ofSeconds(5)), new ByteArrayDeserializer(),
        new ByteArrayDeserializer()).readRecordsToList().size()
        + ones.stream().filter(r -> "true".equals(header(r, HeaderNames.PAID))).count(),
        "exactly the ten reservations the horizon holds, none for the forger");
  }

  @Test
  void shouldNotCarryAForgedPaidReturnToOrNotBeforeOnAnyRecordLeavingTheGate() {
    Headers routing = forged(HeaderNames.PAID, "true", HeaderNames.RETURN_TO, topics.ready(),
        HeaderNames.NOT_BEFORE, "0");
    send("acme", event("ok", "acme", "payments-api"), routing);
    send("acme", "{not json", routing);
    send("acme", event("bad-provider", "acme", "nope-api"), routing);

    TestRecord<byte[], byte[]> admitted = ready.readRecord();
    assertOnlySluiceHeaders(ADMITTED, admitted);
    for (TestRecord<byte[], byte[]> dead : dlq.readRecordsToList()) {
      // A dead letter replayed through the relay must not find a route the producer chose.
      assertNull(header(dead, HeaderNames.PAID));
      assertNull(header(dead, HeaderNames.RETURN_TO));
      assertNull(header(dead, HeaderNames.NOT_BEFORE));
      assertOnlySluiceHeaders(DEAD, dead);
    }
  }

  @Test
  void shouldNameADeadLetterOnlyByAnIdTheGateReadFromTheValue() {
    send("acme", "{\"tenant\":\"acme\"", forged(HeaderNames.EVENT_ID, "forged-id"));
    send("acme", event("real-id", "acme", "nope-api"), forged(HeaderNames.EVENT_ID, "forged-id"));

    List<TestRecord<byte[], byte[]>> dead = dlq.readRecordsToList();
    assertEquals(2, dead.size());
    assertNull(DeadLetter.fromHeaders(dead.get(0).headers()).eventId(),
        "a malformed value has no id; verify knows it by its coordinates");
    assertTrue(DeadLetter.fromHeaders(dead.get(0).headers()).source().startsWith(topics.inbound() + "-"));
    assertEquals("real-id", DeadLetter.fromHeaders(dead.get(1).headers()).eventId());
    dead.forEach(d -> assertOnlySluiceHeaders(DEAD, d));
  }

  @Test
  void shouldTakeTheTierFromConfigurationWhateverTheRecordClaims() {
    send("nobody", event("e1", "nobody", "payments-api"), forged(HeaderNames.TIER, "enterprise"));
    send("nobody", "[]", forged(HeaderNames.TIER, "enterprise"));

    assertEquals("free", header(ready.readRecord(), HeaderNames.TIER));
    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    assertNull(header(dead, HeaderNames.TIER), "a dead letter of a malformed value has no tier");
    assertOnlySluiceHeaders(DEAD, dead);
  }

  @Test
  void shouldStampFirstSeenWhenTheGateFirstSeesTheEventNotWhenTheProducerSays() {
    send("acme", event("e1", "acme", "payments-api"), forged(HeaderNames.FIRST_SEEN, "0"));
    send("acme", "", forged(HeaderNames.FIRST_SEEN, "0"));

    assertEquals(Long.toString(clock.millis()), header(ready.readRecord(), HeaderNames.FIRST_SEEN));
    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    assertEquals(clock.millis(), DeadLetter.fromHeaders(dead.headers()).firstSeen());
  }

  @Test
  void shouldStripEverySluiceHeaderInAnyCaseAndKeepTheProducersOwn() {
    Headers headers = forged("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "Sluice-Attempt", "7", "SLUICE-TICKET", "1", "sluice-reason", "max_attempts",
        "sluice-detail", "forged", "sluice-source", "x-0@0", "sluice-future-header", "x",
        HeaderNames.EVENT_ID, "forged", "x-sluice-note", "kept", "sluice-eta", "1");
    send("acme", event("e1", "acme", "payments-api"), headers);
    send("acme", "{", headers);

    TestRecord<byte[], byte[]> admitted = ready.readRecord();
    assertEquals(List.of(HeaderNames.TIER, HeaderNames.FIRST_SEEN, HeaderNames.ETA),
        sluiceNames(admitted));
    assertEquals(Long.toString(clock.millis()), header(admitted, HeaderNames.ETA), "the gate's own");
    assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", header(admitted, "traceparent"));
    assertEquals("kept", header(admitted, "x-sluice-note"), "only the sluice- prefix is Sluice's");
    TestRecord<byte[], byte[]> dead = dlq.readRecord();
    assertOnlySluiceHeaders(DEAD, dead);
    assertEquals("invalid", header(dead, HeaderNames.REASON));
    assertTrue(header(dead, HeaderNames.SOURCE).startsWith(topics.inbound() + "-0@"));
    assertEquals("kept", header(dead, "x-sluice-note"));
  }
}
