package io.sluice.app.it;

import io.sluice.testkit.Await;
import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.gate.Gate;
import io.sluice.gate.GateListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;

/**
 * Issue 9, Deliver 6: hostile input at the system level. Every case below is produced with a
 * plain Kafka producer into a running pipeline (gate, relay and dispatcher against the in-JVM
 * broker, a real redis-server and an HTTP provider), with a good event after each one. The table
 * is the specification: a bad record lands in {@code sluice.dlq} within a few seconds with its own
 * reason and its original bytes, and costs the provider nothing; a record whose only fault is a
 * forged {@code sluice-*} header is processed as if the header were absent; the good events keep
 * flowing and are each delivered once.
 *
 * <p>Each record carries a {@code hostile-case} header naming its case (a producer's own header,
 * which dead letters keep), so a dead letter is matched to its case even when its value has no id.
 */
@ExtendWith(RealServers.class)
class HostileInputIT {
  private static final String CASE = "hostile-case";
  /** From the produce to the dead letter, the pipeline already running. */
  private static final long FEW_SECONDS_MS = 5_000;
  private static final int MAX_PAYLOAD = 65_536;
  /** Kafka's default broker limit (message.max.bytes) on a batch of one record. */
  private static final int BROKER_LIMIT = 1_048_588;

  /** What must become of a record. */
  sealed interface Expect {}

  /** In {@code sluice.dlq} with this reason and the original value bytes; no provider call. */
  record Dead(String reason) implements Expect {}

  /** Dead as {@link Dead}, and the dead letter does not carry the producer's forged event id. */
  record DeadWithoutForgedId(String reason, String forgedId) implements Expect {}

  /** Delivered once, with these attempts and tier in its outcome, at this request path (null: any). */
  record Delivered(int attempts, String tier, String path) implements Expect {}

  /**
   * Either invalid at the gate or delivered once (at a path under the provider's base), never a
   * provider failure: for inputs that may be encoded so that they can be sent (DESIGN.md leaves
   * the choice to the gate's rules).
   */
  record DeliveredOrInvalid() implements Expect {}

  /** Deferred by the gate (the bucket is empty), with this {@code sluice-paid}; not delivered. */
  record Deferred(boolean paid) implements Expect {}

  record Case(String name, byte[] key, byte[] value, Map<String, String> headers, Expect expect) {}

  private static final Expect INVALID = new Dead("invalid");
  private static final Expect DELIVERED = new Delivered(1, "std", null);

  /** The specification: name, key, value, headers, expected outcome. Ids are "h-" + name. */
  static List<Case> cases() {
    List<Case> c = new ArrayList<>();
    // Not JSON, or not a JSON object.
    c.add(bad("random-bytes", randomBytes(512), INVALID));
    c.add(bad("null-value", null, INVALID));
    c.add(bad("empty-value", new byte[0], INVALID));
    c.add(new Case("null-key-null-value", null, null, Map.of(), INVALID));
    // The key must be the tenant: a tenant's quota lives in the one partition its events meet in.
    c.add(new Case("null-key", null, event("null-key", ""), Map.of(), INVALID));
    c.add(new Case("other-tenants-key", bytes("tight-paid"), event("other-tenants-key", ""), Map.of(),
        INVALID));
    c.add(bad("non-utf8", concat(bytes("{\"id\":\"h-non-utf8-"), new byte[] {(byte) 0xff, (byte) 0xfe},
        bytes("\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}")), INVALID));
    c.add(bad("utf16-json", new String(event("utf16-json", ""), UTF_8).getBytes(UTF_16LE), INVALID));
    c.add(bad("bom-json", concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, event("bom-json", "")), INVALID));
    c.add(bad("json-array", bytes("[{\"id\":\"h-json-array\",\"tenant\":\"acme\",\"provider\":\"api\"}]"), INVALID));
    c.add(bad("json-number", bytes("42"), INVALID));
    c.add(bad("json-string", bytes("\"{\\\"id\\\":\\\"h-json-string\\\"}\""), INVALID));
    c.add(bad("json-null", bytes("null"), INVALID));
    c.add(bad("trailing-garbage", concat(event("trailing-garbage", ""), bytes("}garbage")), INVALID));
    c.add(bad("deep-nesting", bytes("{\"id\":\"h-deep-nesting\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":"
        + "[".repeat(10_000) + "]".repeat(10_000) + "}"), INVALID));
    c.add(bad("duplicate-keys", bytes("{\"id\":\"h-duplicate-keys\",\"tenant\":\"acme\",\"tenant\":\"other\","
        + "\"provider\":\"api\",\"payload\":{}}"), INVALID));
    // Costs.
    c.add(bad("cost-huge-integer", event("cost-huge-integer", ",\"cost\":123456789012345678901234567890"), INVALID));
    c.add(bad("cost-huge-float", event("cost-huge-float", ",\"cost\":1e400"), INVALID));
    c.add(bad("cost-zero", event("cost-zero", ",\"cost\":0"), INVALID));
    c.add(bad("cost-negative", event("cost-negative", ",\"cost\":-1"), INVALID));
    c.add(bad("cost-fraction", event("cost-fraction", ",\"cost\":1.5"), INVALID));
    c.add(bad("cost-string", event("cost-string", ",\"cost\":\"1\""), INVALID));
    c.add(bad("cost-above-max", event("cost-above-max", ",\"cost\":11"), INVALID));
    // Required fields and identities.
    c.add(bad("missing-id", bytes("{\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("missing-tenant", bytes("{\"id\":\"h-missing-tenant\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("missing-provider", bytes("{\"id\":\"h-missing-provider\",\"tenant\":\"acme\",\"payload\":{}}"), INVALID));
    c.add(bad("empty-id", bytes("{\"id\":\"\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("id-129-chars", bytes("{\"id\":\"" + "i".repeat(129) + "\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("id-number", bytes("{\"id\":7,\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("tenant-bad-chars", bytes("{\"id\":\"h-tenant-bad-chars\",\"tenant\":\"ac me/../x\",\"provider\":\"api\",\"payload\":{}}"), INVALID));
    c.add(bad("unknown-tenant", bytes("{\"id\":\"h-unknown-tenant\",\"tenant\":\"nobody\",\"provider\":\"api\",\"payload\":{}}"),
        new Dead("unknown_tenant")));
    c.add(bad("unknown-provider", bytes("{\"id\":\"h-unknown-provider\",\"tenant\":\"acme\",\"provider\":\"nope\",\"payload\":{}}"),
        new Dead("unknown_provider")));
    // Deadlines and sizes.
    c.add(bad("deadline-past", event("deadline-past", ",\"deadline\":\"2020-01-01T00:00:00Z\""), new Dead("expired")));
    c.add(bad("deadline-malformed", event("deadline-malformed", ",\"deadline\":\"tomorrow at noon\""), INVALID));
    c.add(bad("payload-oversize", event("payload-oversize", ",\"pad\":\"" + "p".repeat(MAX_PAYLOAD) + "\""), INVALID));
    c.add(bad("value-near-broker-limit", filled(BROKER_LIMIT - 400, (byte) 'n'), INVALID));
    // What the id, the attributes and the path carry into an HTTP request must be sendable.
    c.add(bad("id-control-char", event("id-control-\\u0001-char", ""), INVALID));
    c.add(bad("id-crlf", event("id-crlf\\r\\nX-Injected: 1", ""), INVALID));
    c.add(bad("attribute-crlf", event("attribute-crlf", ",\"attributes\":{\"X-Trace\":\"a\\r\\nX-Injected: 1\"}"), INVALID));
    c.add(bad("id-unicode", event("id-unicode-\u00e9\u20ac\u65e5\u672c", ""), new DeliveredOrInvalid()));
    c.add(bad("path-dot-dot", event("path-dot-dot", ",\"path\":\"../x\""), INVALID));
    c.add(bad("path-dot-dot-deep", event("path-dot-dot-deep", ",\"path\":\"a/../../b\""), INVALID));
    c.add(bad("path-encoded-dot-dot", event("path-encoded-dot-dot", ",\"path\":\"a/%2e%2e/%2E%2E/b\""), INVALID));
    c.add(bad("path-absolute", event("path-absolute", ",\"path\":\"/abs\""), new Delivered(1, "std", "/hooks/abs")));
    c.add(bad("path-host", event("path-host", ",\"path\":\"//evil.example/x\""), INVALID));
    c.add(bad("path-url", event("path-url", ",\"path\":\"http://evil.example/x\""), INVALID));
    c.add(bad("path-fragment", event("path-fragment", ",\"path\":\"a#b\""), INVALID));
    c.add(bad("path-two-fragments", event("path-two-fragments", ",\"path\":\"a#b#c\""), INVALID));
    c.add(bad("path-bad-escape", event("path-bad-escape", ",\"path\":\"a%zz\""), INVALID));
    c.add(bad("path-backslash", event("path-backslash", ",\"path\":\"a\\\\..\\\\b\""), INVALID));
    c.add(bad("path-at-sign", event("path-at-sign", ",\"path\":\"user@evil.example\""), INVALID));
    // Forged sluice-* headers: ignored, the event is processed as if they were absent.
    c.add(forged("forged-attempt-99", Map.of(HeaderNames.ATTEMPT, "99"), DELIVERED));
    c.add(forged("forged-attempt-negative", Map.of(HeaderNames.ATTEMPT, "-5"), DELIVERED));
    c.add(forged("forged-tier", Map.of(HeaderNames.TIER, "enterprise"), DELIVERED));
    c.add(forged("forged-return-to", Map.of(HeaderNames.RETURN_TO, "some.other.topic"), DELIVERED));
    c.add(forged("forged-not-before-far-future", Map.of(HeaderNames.NOT_BEFORE, "4102444800000"), DELIVERED));
    c.add(forged("forged-reason", Map.of(HeaderNames.REASON, "expired"), DELIVERED));
    c.add(new Case("forged-event-id-on-malformed", bytes("tight"), bytes("{not json"),
        Map.of(HeaderNames.EVENT_ID, "h-forged-id"), new DeadWithoutForgedId("invalid", "h-forged-id")));
    // Forged paid: the gate charges it all the same, so the next event of that one-unit bucket waits.
    c.add(new Case("forged-paid", bytes("tight-paid"), event("forged-paid", "tight-paid", ""),
        Map.of(HeaderNames.PAID, "true"), DELIVERED));
    c.add(new Case("after-forged-paid", bytes("tight-paid"), event("after-forged-paid", "tight-paid", ""),
        Map.of(), new Deferred(false)));
    // Forged ticket: no skipping the horizon check; beyond it the event is queued unpaid, not reserved.
    c.add(new Case("before-forged-ticket", bytes("tight-ticket"), event("before-forged-ticket", "tight-ticket", ""),
        Map.of(), DELIVERED));
    c.add(new Case("forged-ticket", bytes("tight-ticket"), event("forged-ticket", "tight-ticket", ""),
        Map.of(HeaderNames.TICKET, "1"), new Deferred(false)));
    return c;
  }

  private static String config(String providerUrl) {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    return """
        ladder: [1s, 5s]
        maxAttempts: 2
        reservationHorizon: 2s
        tiers: { std: { weight: 1 } }
        providers:
          api:
            url: %s
            rate: 500/s
            maxInFlight: 16
            timeout: 5s
            maxCost: 10
            forwardHeaders: [X-Trace]
            quotas: { std: { capacity: 1000, refill: 1000/s } }
        tenants:
          acme: { tier: std }
          # One unit each, back every 20 s: an event's second look beyond the 2 s horizon is queued
          # unpaid; and a first event a revived gate task charges again (stricter, guarantees.md)
          # is still called within the read's 40 s (at 1/h CI once saw both first events wait).
          tight-paid: { tier: std, quotas: { api: { capacity: 1, refill: 3/m } } }
          tight-ticket: { tier: std, quotas: { api: { capacity: 1, refill: 3/m } } }
        gate: { applicationId: hostile-%s, maxPayloadBytes: %d }
        dispatcher: { backoffBase: 100ms, backoffCap: 200ms }
        """.formatted(providerUrl, unique, MAX_PAYLOAD);
  }

  /** What was seen of one case on the output topics and at the provider. */
  private static final class Seen {
    final List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
    final List<ConsumerRecord<byte[], byte[]>> outcomes = new ArrayList<>();
    final List<ConsumerRecord<byte[], byte[]>> deferred = new ArrayList<>();
    long sentAt;

    /** Something final was seen (right or wrong: the checks say which), so reading can stop. */
    boolean settled(Expect e) {
      return !outcomes.isEmpty() || !dead.isEmpty() || e instanceof Deferred && !deferred.isEmpty();
    }
  }

  @Test
  @DisplayName("hostile input: each kind dead-lettered within seconds with its reason, forged headers ignored, good events flow")
  void everyHostileKindEndsWhereTheTableSays(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    List<Case> cases = cases();
    // The provider's own limit is far above the configured rate: this suite is about inputs (the
    // precision of the leak at a strict provider is LeakPrecisionIT's), and a 429 here would show
    // up as a second attempt.
    try (MockProvider mock = MockProvider.start(10_000, 100, Duration.ZERO)) {
      SluiceConfig config = ConfigLoader.parse(config(mock.url().toString()), Map.of(
          "SLUICE_KAFKA__BOOTSTRAP", kafka.bootstrapServers(),
          "SLUICE_KAFKA__TOPIC_PREFIX", "h" + UUID.randomUUID().toString().substring(0, 8) + ".",
          "SLUICE_REDIS__URI", redis.uri(),
          "SLUICE_DISPATCHER__GROUP_ID", "hostile-" + UUID.randomUUID()));
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<AutoCloseable> closing = new ArrayList<>();
      Map<String, Seen> seen = new LinkedHashMap<>();
      Map<String, String> caseOfId = new HashMap<>();
      List<String> goodIds = new ArrayList<>();
      try {
        Gate gate = Gate.start(config, new GateListener() {}, Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
        closing.add(gate);
        closing.add(RelayService.start(config, RelayListener.NONE));
        closing.add(new Running(config, "hostile-dispatcher", Providers.http(config),
            Providers.redisLeak(config, closing), new Tally()));
        Await.until("the gate running", Duration.ofSeconds(30),
            gate.streams()::state, s -> s == KafkaStreams.State.RUNNING);

        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
          List<Future<RecordMetadata>> acks = new ArrayList<>();
          for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            RecordHeaders headers = new RecordHeaders();
            headers.add(CASE, bytes(c.name()));
            c.headers().forEach((k, v) -> headers.add(k, bytes(v)));
            Seen s = new Seen();
            s.sentAt = System.currentTimeMillis();
            seen.put(c.name(), s);
            caseOfId.put("h-" + c.name(), c.name());
            idOf(c.value()).ifPresent(id -> caseOfId.put(id, c.name()));
            acks.add(producer.send(new ProducerRecord<>(topics.inbound(), null, s.sentAt, c.key(), c.value(), headers)));
            String good = "good-" + i;
            goodIds.add(good);
            acks.add(producer.send(new ProducerRecord<>(topics.inbound(), bytes("acme"),
                bytes("{\"id\":\"" + good + "\",\"tenant\":\"acme\",\"provider\":\"api\",\"payload\":{\"n\":" + i + "}}"))));
          }
          for (Future<RecordMetadata> ack : acks) {
            ack.get();
          }
        }
        Map<String, ConsumerRecord<byte[], byte[]>> goodOutcomes = new HashMap<>();
        read(kafka, topics, Duration.ofSeconds(40), cases, seen, caseOfId, goodIds, goodOutcomes);
        System.out.printf("hostile input: %d cases and %d good events produced and settled in %d ms%n",
            cases.size(), goodIds.size(), (System.nanoTime() - start) / 1_000_000);

        List<Executable> checks = new ArrayList<>();
        for (Case c : cases) {
          checks.add(() -> check(c, seen.get(c.name()), mock));
        }
        checks.add(() -> assertEquals(goodIds.size(), goodOutcomes.size(),
            "every good event interleaved with the hostile ones is delivered; missing: "
                + goodIds.stream().filter(id -> !goodOutcomes.containsKey(id)).toList()));
        checks.add(() -> {
          Map<String, Integer> callsPerKey = Providers.count(
              mock.calls().stream().map(MockProvider.Call::idempotencyKey).toList());
          goodIds.forEach(id -> assertEquals(1, callsPerKey.getOrDefault(id, 0), id + " is called once; statuses: "
              + callsFor(mock, id).stream().map(MockProvider.Call::status).toList()));
          for (String key : callsPerKey.keySet()) {
            String name = caseOfId.get(key);
            Expect e = name == null ? null : cases.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow().expect();
            assertTrue(key.startsWith("good-") || e instanceof Delivered || e instanceof DeliveredOrInvalid
                    || key.startsWith("h-id-unicode"),
                "the provider was called for " + key + ", which must never reach it");
          }
        });
        checks.add(() -> assertEquals(0, mock.rateLimited(), "the provider never had to answer 429"));
        assertAll("hostile input", checks);
      } finally {
        for (int i = closing.size() - 1; i >= 0; i--) {
          closing.get(i).close();
        }
      }
    }
  }

  /** Reads dead letters, outcomes and deferrals until every case and good event has settled, or the deadline. */
  private static void read(KafkaBroker kafka, Topics topics, Duration within, List<Case> cases,
      Map<String, Seen> seen, Map<String, String> caseOfId, List<String> goodIds,
      Map<String, ConsumerRecord<byte[], byte[]>> goodOutcomes) {
    try (KafkaConsumer<byte[], byte[]> c = Pipeline.reader(kafka)) {
      List<String> subscribed = new ArrayList<>(List.of(topics.dlq(), topics.outcomes()));
      subscribed.addAll(topics.delays());
      c.subscribe(subscribed);
      boolean settled = Await.atMost(within, () -> {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          String name = HeaderValues.last(r.headers(), CASE).orElse(null);
          String id = HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).orElse(null);
          if (name == null && id != null) {
            name = caseOfId.get(id);
          }
          if (r.topic().equals(topics.outcomes()) && id != null && id.startsWith("good-")) {
            goodOutcomes.putIfAbsent(id, r);
          } else if (name != null && seen.containsKey(name)) {
            Seen s = seen.get(name);
            (r.topic().equals(topics.dlq()) ? s.dead : r.topic().equals(topics.outcomes()) ? s.outcomes : s.deferred).add(r);
          }
        }
        return goodOutcomes.keySet().containsAll(goodIds)
            && cases.stream().allMatch(k -> seen.get(k.name()).settled(k.expect()));
      }, done -> done);
      if (settled) {
        return;
      }
      System.out.printf("hostile input: not settled within %s: %s; good events missing: %s%n", within,
          cases.stream().filter(k -> !seen.get(k.name()).settled(k.expect())).map(Case::name).toList(),
          goodIds.stream().filter(id -> !goodOutcomes.containsKey(id)).toList());
    }
  }

  private static void check(Case c, Seen s, MockProvider mock) throws IOException {
    String what = c.name() + ": ";
    Expect e = c.expect();
    if (e instanceof Dead d) {
      assertDead(c, s, d.reason());
    } else if (e instanceof DeadWithoutForgedId d) {
      assertDead(c, s, d.reason());
      assertNotEquals(d.forgedId(), HeaderValues.last(s.dead.get(0).headers(), HeaderNames.EVENT_ID).orElse(null),
          what + "a producer's sluice-event-id is never believed");
    } else if (e instanceof Delivered d) {
      assertTrue(s.dead.isEmpty(), what + "delivered, not dead-lettered: " + reasons(s));
      assertEquals(1, s.outcomes.size(), what + "one outcome");
      JsonNode outcome = Json.mapper().readTree(s.outcomes.get(0).value());
      assertEquals(d.attempts(), outcome.get("attempts").asInt(), what + "attempts in the outcome");
      assertEquals(d.tier(), outcome.get("tier").asText(), what + "the tier comes from configuration");
      List<MockProvider.Call> calls = callsFor(mock, "h-" + c.name());
      assertEquals(1, calls.size(), what + "the provider is called once; statuses: "
          + calls.stream().map(MockProvider.Call::status).toList());
      if (d.path() != null) {
        assertEquals(d.path(), calls.get(0).path(), what + "the request path");
      }
    } else if (e instanceof DeliveredOrInvalid) {
      assertTrue(!s.outcomes.isEmpty() || !s.dead.isEmpty(), what + "settled");
      if (s.outcomes.isEmpty()) {
        assertDead(c, s, "invalid");
      } else {
        assertTrue(s.dead.isEmpty(), what + "delivered and dead: " + reasons(s));
      }
    } else if (e instanceof Deferred d) {
      assertTrue(s.outcomes.isEmpty(), what + "not delivered while its bucket is empty");
      assertTrue(s.dead.isEmpty(), what + "not dead: " + reasons(s));
      assertTrue(!s.deferred.isEmpty(), what + "deferred by the gate");
      ConsumerRecord<byte[], byte[]> r = s.deferred.get(0);
      assertEquals("rate_limited", HeaderValues.last(r.headers(), HeaderNames.REASON).orElse(null), what + "reason");
      assertEquals(String.valueOf(d.paid()), HeaderValues.last(r.headers(), HeaderNames.PAID).orElse(null),
          what + "sluice-paid on the deferral");
    }
  }

  private static void assertDead(Case c, Seen s, String reason) {
    String what = c.name() + ": ";
    assertTrue(!s.dead.isEmpty(), what + "a dead letter in sluice.dlq (outcomes: " + s.outcomes.size() + ")");
    assertTrue(s.outcomes.isEmpty(), what + "never delivered");
    ConsumerRecord<byte[], byte[]> r = s.dead.get(0);
    assertEquals(reason, HeaderValues.last(r.headers(), HeaderNames.REASON).orElse(null), what + "reason; detail: "
        + HeaderValues.last(r.headers(), HeaderNames.DETAIL).orElse(null));
    assertNotNull(HeaderValues.last(r.headers(), HeaderNames.DETAIL).orElse(null), what + "a detail");
    assertArrayEquals(c.value() == null ? new byte[0] : c.value(), r.value() == null ? new byte[0] : r.value(),
        what + "the original bytes");
    assertArrayEquals(c.key(), r.key(), what + "the original key");
    long latency = r.timestamp() - s.sentAt;
    assertTrue(latency <= FEW_SECONDS_MS, what + "dead-lettered " + latency + " ms after it was produced");
  }

  /** The id in a value that parses as JSON with a textual id, for matching outcomes to cases. */
  private static java.util.Optional<String> idOf(byte[] value) {
    try {
      JsonNode id = value == null ? null : Json.mapper().readTree(value).get("id");
      return id != null && id.isTextual() ? java.util.Optional.of(id.textValue()) : java.util.Optional.empty();
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
  }

  private static String reasons(Seen s) {
    return s.dead.stream().map(r -> HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("?") + " ("
        + HeaderValues.last(r.headers(), HeaderNames.DETAIL).orElse("") + ")").toList().toString();
  }

  private static List<MockProvider.Call> callsFor(MockProvider mock, String id) {
    return mock.calls().stream().filter(call -> id.equals(call.idempotencyKey())).toList();
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaBroker kafka) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, 5,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG, BROKER_LIMIT),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static Case bad(String name, byte[] value, Expect expect) {
    return new Case(name, bytes("acme"), value, Map.of(), expect);
  }

  private static Case forged(String name, Map<String, String> headers, Expect expect) {
    return new Case(name, bytes("acme"), event(name, ""), headers, expect);
  }

  /** A valid event of tenant acme with id "h-" + idSuffix, plus {@code extra} JSON fields. */
  private static byte[] event(String idSuffix, String extra) {
    return event(idSuffix, "acme", extra);
  }

  private static byte[] event(String idSuffix, String tenant, String extra) {
    return bytes("{\"id\":\"h-" + idSuffix + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"api\""
        + extra + ",\"payload\":{\"n\":1}}");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(9).nextBytes(b);
    return b;
  }

  private static byte[] filled(int n, byte value) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, value);
    return b;
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
