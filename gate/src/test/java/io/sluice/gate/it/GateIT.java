package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayService;
import io.sluice.relay.RelayListener;
import io.sluice.gate.Gate;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The gate against a real KRaft broker and a real redis-server. */
@ExtendWith(RealServers.class)
class GateIT {
  private static final Map<String, Object> FAST_COMMITS = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);

  static String config(String tierQuotas, String horizon) {
    return """
        ladder: [1s, 5s, 30s]
        reservationHorizon: %s
        tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }
        defaultTier: free
        providers:
          payments-api:
            url: http://localhost:8081/hooks
            rate: 500/s
            maxCost: 10
            onRedisDown: fail_closed
            quotas: %s
          local-api:
            url: http://localhost:8082/
            rate: 500/s
            onRedisDown: local
            quotas: %s
        tenants:
          acme: { tier: enterprise }
        gate: { maxPayloadBytes: 2048, streamThreads: 2 }
        """.formatted(horizon, tierQuotas, tierQuotas);
  }

  static String event(String id, String tenant, String provider, int cost) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
        + "\",\"cost\":" + cost + ",\"payload\":{\"n\":1}}";
  }

  static void send(KafkaProducer<byte[], byte[]> p, Topics topics, String tenant, String json) {
    p.send(new ProducerRecord<>(topics.inbound(), bytes(tenant), bytes(json)));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  static String idOf(ConsumerRecord<byte[], byte[]> r) {
    String v = text(r.value());
    int i = v.indexOf("\"id\":\"") + 6;
    return v.substring(i, v.indexOf('"', i));
  }

  static boolean paid(ConsumerRecord<byte[], byte[]> r) {
    return HeaderValues.last(r.headers(), HeaderNames.PAID).map("true"::equals).orElse(false);
  }

  /** Admission instants: a ready record's timestamp, or a paid reservation's not-before. */
  static long admittedAt(ConsumerRecord<byte[], byte[]> r, Topics topics) {
    return r.topic().equals(topics.ready())
        ? r.timestamp()
        : HeaderValues.lastLong(r.headers(), HeaderNames.NOT_BEFORE).orElseThrow();
  }

  @Test
  void shouldNeverAdmitMoreThanCapacityPlusRateTimesWindowWithTwoGatesAndTwoHundredTenants(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    String quotas = "{ enterprise: { capacity: 5, refill: 10/s }, pro: { capacity: 5, refill: 10/s }, free: { capacity: 5, refill: 10/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "2s"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 6);
    int tenants = 200;
    int perTenant = 30; // 30 events in about a second: three times the refill, six times the burst
    try (Gate one = Gate.start(config, new CountingListener(), FAST_COMMITS);
         Gate two = Gate.start(config, new CountingListener(), FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      for (int round = 0; round < perTenant; round++) {
        for (int t = 0; t < tenants; t++) {
          send(p, topics, "tenant-" + t, event("t" + t + "-" + round, "tenant-" + t, "payments-api", 1));
        }
        p.flush();
      }
      int total = tenants * perTenant;
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.stream().map(GateIT::idOf).distinct().count() >= total, Duration.ofSeconds(120));

      Map<String, List<Long>> admitted = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> r : records) {
        if (r.topic().equals(topics.ready()) || paid(r)) {
          admitted.computeIfAbsent(text(r.key()), k -> new ArrayList<>()).add(admittedAt(r, topics));
        }
      }
      assertEquals(tenants, admitted.size(), "every tenant had admissions");
      Quota q = config.quotaOf("payments-api", "tenant-0").orElseThrow();
      for (Map.Entry<String, List<Long>> e : admitted.entrySet()) {
        assertWithinBucket(e.getKey(), e.getValue(), q.capacity(), q.refill().perSecond());
      }
    }
  }

  /**
   * For every window [t_i, t_k] of admission instants: k - i + 1 &le; capacity + rate * T. Times
   * are stamped in whole milliseconds (admissions rounded down, reservations up), so T is widened
   * by 2 ms.
   */
  static void assertWithinBucket(String tenant, List<Long> times, double capacity, double rate) {
    List<Long> sorted = new ArrayList<>(times);
    sorted.sort(null);
    for (int i = 0; i < sorted.size(); i++) {
      for (int k = i; k < sorted.size(); k++) {
        double window = (sorted.get(k) - sorted.get(i) + 2) / 1000.0;
        int count = k - i + 1;
        assertTrue(count <= capacity + rate * window + 1e-9,
            tenant + ": " + count + " admitted within " + window + " s (limit " + (capacity + rate * window)
                + "); admissions, ms after the first: " + sorted.stream().map(t -> t - sorted.get(0)).toList());
      }
    }
  }

  @Test
  void shouldDeferEachEventByTheExactWaitTheBucketComputes(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    String quotas = "{ enterprise: { capacity: 2, refill: 4/s }, pro: { capacity: 2, refill: 4/s }, free: { capacity: 2, refill: 4/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "10s"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    try (Gate gate = Gate.start(config, new CountingListener(), FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      for (int i = 0; i < 10; i++) {
        send(p, topics, "exact", event("x" + i, "exact", "payments-api", 1));
      }
      p.flush();
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.size() >= 10, Duration.ofSeconds(60));
      List<Long> times = records.stream().map(r -> admittedAt(r, topics)).sorted().toList();
      long first = times.get(0);
      // Two from the full bucket at once, then one unit every 250 ms, all as reservations.
      assertEquals(2, records.stream().filter(r -> r.topic().equals(topics.ready())).count());
      for (int k = 2; k < 10; k++) {
        long expected = (k - 1) * 250L;
        long actual = times.get(k) - first;
        assertTrue(Math.abs(actual - expected) <= 30,
            "event " + k + " waits " + actual + " ms, the bucket says " + expected + " ms (events arrive within ms)");
      }
    }
  }

  @Test
  void shouldCarryEachEventsEtaAndReceiptAndDeadLetterAnUnreachableDeadlineAtOnce(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    String quotas = "{ enterprise: { capacity: 2, refill: 4/s }, pro: { capacity: 2, refill: 4/s }, free: { capacity: 2, refill: 4/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "10s").replace(
        "gate: { maxPayloadBytes: 2048, streamThreads: 2 }",
        "gate: { maxPayloadBytes: 2048, streamThreads: 2, receipts: true }"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    broker.createTopics(Map.of(topics.receipts(), 2));
    try (Gate gate = Gate.start(config, new CountingListener(), FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      // 2 at once, then one unit every 250 ms: the 60th is due 14.5 s after the first (those
      // beyond the 10 s horizon queued with a ticket, due a horizon after their turn).
      for (int i = 0; i < 60; i++) {
        send(p, topics, "eta", event("x" + i, "eta", "payments-api", 1));
      }
      // Due 14.75 s or more after the gate decides: a deadline 10 s away cannot be met (unless
      // the gate took 10 s to decide: then it is expired), one a minute away can.
      send(p, topics, "eta", "{\"id\":\"doomed\",\"tenant\":\"eta\",\"provider\":\"payments-api\","
          + "\"deadline\":\"" + java.time.Instant.now().plusSeconds(10) + "\",\"payload\":{}}");
      send(p, topics, "eta", "{\"id\":\"feasible\",\"tenant\":\"eta\",\"provider\":\"payments-api\","
          + "\"deadline\":\"" + java.time.Instant.now().plusSeconds(60) + "\",\"payload\":{}}");
      p.flush();
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.size() >= 61, Duration.ofSeconds(60));
      for (ConsumerRecord<byte[], byte[]> r : records) {
        long due = HeaderValues.last(r.headers(), HeaderNames.TICKET).isPresent()
            ? HeaderValues.lastLong(r.headers(), HeaderNames.NOT_BEFORE).orElseThrow() + 10_000
            : admittedAt(r, topics);
        assertEquals(due, HeaderValues.lastLong(r.headers(), HeaderNames.ETA).orElseThrow(),
            idOf(r) + ": its ETA is its quota's time");
      }
      assertTrue(records.stream().anyMatch(r -> idOf(r).equals("feasible")));
      List<ConsumerRecord<byte[], byte[]>> dead = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.dlq()), all -> !all.isEmpty(), Duration.ofSeconds(30));
      assertEquals(List.of("doomed"), dead.stream().map(GateIT::idOf).toList());
      assertEquals("deadline_unreachable",
          HeaderValues.last(dead.get(0).headers(), HeaderNames.REASON).orElseThrow());
      List<ConsumerRecord<byte[], byte[]>> receipts = KafkaClients.readUntil(
          broker.bootstrapServers(), List.of(topics.receipts()), all -> all.size() >= 62,
          Duration.ofSeconds(30));
      assertEquals(62, receipts.size(), "one receipt per decision");
      var json = new com.fasterxml.jackson.databind.ObjectMapper();
      for (ConsumerRecord<byte[], byte[]> r : receipts) {
        var receipt = json.readTree(r.value());
        String id = receipt.get("id").asText();
        if (id.equals("doomed")) {
          assertEquals("dead", receipt.get("decision").asText());
          assertEquals("deadline_unreachable", receipt.get("reason").asText());
          continue;
        }
        ConsumerRecord<byte[], byte[]> routed = records.stream().filter(x -> idOf(x).equals(id))
            .findFirst().orElseThrow();
        assertEquals(HeaderValues.lastLong(routed.headers(), HeaderNames.ETA).orElseThrow(),
            receipt.get("etaMillis").asLong(), id + ": the receipt's ETA is the one it carries");
        assertEquals(routed.topic().equals(topics.ready()) ? "admitted" : paid(routed) ? "reserved"
            : "queued", receipt.get("decision").asText(), id);
      }
    }
  }

  @Test
  void shouldAdmitEveryEventOfAShadowTenantAndLeaveItsBucketOutOfDebtAndLine(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    String quotas = "{ enterprise: { capacity: 5, refill: 10/s }, pro: { capacity: 5, refill: 10/s }, free: { capacity: 5, refill: 10/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "2s")
        .replace("acme: { tier: enterprise }", "acme: { tier: enterprise }\n  watched: { tier: free, shadow: true }"),
        broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    CountingListener counts = new CountingListener();
    int events = 100;
    try (Gate gate = Gate.start(config, counts, FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      for (int i = 0; i < events; i++) {
        send(p, topics, "watched", event("w" + i, "watched", "payments-api", 1));
      }
      p.flush();
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.stream().map(GateIT::idOf).distinct().count() >= events, Duration.ofSeconds(60));
      assertTrue(records.stream().allMatch(r -> r.topic().equals(topics.ready())),
          "every event of the shadow tenant went to ready, none to the ladder");
      assertTrue(counts.wouldDefer.get() >= events / 2,
          "most were counted as would-defer (a bucket of 5 at 10/s): " + counts.wouldDefer.get());

      io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
      try (var c = client.connect()) {
        String key = new io.sluice.gate.limiter.BucketKey("payments-api", "watched").redisKey();
        assertEquals(null, c.sync().hget(key, "line"), "the shadow burst took no place in the line");
        double level = Double.parseDouble(c.sync().hget(key, "tokens"));
        assertTrue(level >= 0, "the shadow burst reserved nothing ahead: level " + level);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void shouldDecideAnEventAtMostTwiceWhenATenantSendsTenTimesItsRate(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    String quotas = "{ enterprise: { capacity: 10, refill: 10/s }, pro: { capacity: 10, refill: 10/s }, free: { capacity: 10, refill: 10/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "10s"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    CountingListener counts = new CountingListener();
    // 100/s for 1.4 s against a refill of 10/s and a 10 s horizon: 10 + 10 * (1.4 + 10) = 124 can
    // be charged as they come, the other 16 are queued unpaid and decided again on their turn,
    // so about 1 + 16/140 = 1.11 decisions per event (a longer burst queues more).
    int events = 140;
    try (Gate gate = Gate.start(config, counts, FAST_COMMITS);
         RelayService relay = RelayService.start(config, RelayListener.NONE);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      long start = System.nanoTime();
      for (int i = 0; i < events; i++) {
        send(p, topics, "loud", event("a" + i, "loud", "payments-api", 1));
        // Pacing the load (not waiting for a condition): one event every 10 ms.
        java.util.concurrent.locks.LockSupport.parkNanos(start + (i + 1) * 10_000_000L - System.nanoTime());
      }
      p.flush();
      // Done when every event is admitted or holds a paid reservation.
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.stream().filter(r -> r.topic().equals(topics.ready()) || paid(r))
              .map(GateIT::idOf).distinct().count() >= events,
          Duration.ofSeconds(60));
      long unpaid = records.stream().filter(r -> !r.topic().equals(topics.ready()) && !paid(r)
          && r.topic().startsWith(topics.prefix() + "delay.")
          && HeaderValues.last(r.headers(), HeaderNames.TICKET).isPresent()).map(GateIT::idOf).distinct().count();
      double amplification = counts.decisions.get() / (double) events;
      System.out.printf("amplification: %d decisions for %d events (%.3f), %d queued unpaid, %d Redis calls%n",
          counts.decisions.get(), events, amplification, unpaid, counts.redisCalls.get());
      assertTrue(amplification <= 1.2, "amplification " + amplification);
      assertTrue(unpaid > 0, "the run went past the horizon, so some events were queued unpaid");
      assertEquals(events + unpaid, counts.decisions.get(), "an event is decided once, or twice when it queued");
    }
  }

  @Test
  void shouldDeadLetterTheBadInputCorpusWhileGoodEventsKeepFlowing(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    String quotas = "{ enterprise: { capacity: 1000, refill: 1000/s }, pro: { capacity: 1000, refill: 1000/s }, free: { capacity: 1000, refill: 1000/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "10s"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    List<byte[]> bad = new ArrayList<>();
    try (Stream<Path> files = Files.list(Path.of("..", "schemas", "src", "test", "resources", "corpus", "invalid"))) {
      for (Path f : files.sorted().toList()) {
        bad.add(Files.readAllBytes(f));
      }
    }
    bad.add(bytes(event("unknown-provider", "acme", "no-such-api", 1)));
    bad.add(bytes(event("too-costly", "acme", "payments-api", 11)));
    bad.add(bytes("{\"id\":\"big\",\"tenant\":\"acme\",\"provider\":\"payments-api\",\"payload\":\"" + "x".repeat(3000) + "\"}"));
    bad.add(bytes("{\"id\":\"late\",\"tenant\":\"acme\",\"provider\":\"payments-api\",\"deadline\":\"2020-01-01T00:00:00Z\"}"));
    assertTrue(bad.size() >= 25, "the corpus has " + bad.size() + " bad samples");
    try (Gate gate = Gate.start(config, new CountingListener(), FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      int good = 0;
      for (byte[] b : bad) {
        p.send(new ProducerRecord<>(topics.inbound(), bytes("acme"), b));
        send(p, topics, "acme", event("good-" + good++, "acme", "payments-api", 1));
      }
      p.flush();
      int goodCount = good;
      List<ConsumerRecord<byte[], byte[]>> dead = KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.dlq()),
          all -> all.size() >= bad.size(), Duration.ofSeconds(60));
      List<ConsumerRecord<byte[], byte[]>> ready = KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.ready()),
          all -> all.size() >= goodCount, Duration.ofSeconds(60));
      assertEquals(bad.size(), dead.size());
      Set<String> deadValues = new HashSet<>();
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        assertTrue(HeaderValues.last(r.headers(), HeaderNames.REASON).isPresent());
        assertTrue(HeaderValues.last(r.headers(), HeaderNames.DETAIL).map(d -> !d.isBlank()).orElse(false));
        deadValues.add(text(r.value()));
      }
      for (byte[] b : bad) {
        assertTrue(deadValues.contains(text(b)), "kept its original bytes: " + text(b));
      }
      // Every malformed or unsendable corpus value (CR/LF in the id or an attribute, a unicode id,
      // every path trick) is invalid at the gate: never an attempt at the provider.
      Set<String> corpus = new HashSet<>();
      bad.subList(0, bad.size() - 4).forEach(b -> corpus.add(text(b)));
      for (ConsumerRecord<byte[], byte[]> r : dead) {
        if (corpus.contains(text(r.value()))) {
          assertEquals("invalid", HeaderValues.last(r.headers(), HeaderNames.REASON).orElseThrow(), text(r.value()));
        }
      }
      assertEquals(goodCount, ready.size());
      assertTrue(gate.streams().state().isRunningOrRebalancing(),
          "bad input never stops the stream: " + gate.streams().state());
    }
  }
  /**
   * Producers write inbound with any client, so every sluice-* header there is a forgery: on a real
   * broker, what leaves the gate carries only the headers the gate wrote (ForgedHeadersTest has one
   * case per header).
   */
  @Test
  void shouldIgnoreEverySluiceHeaderAProducerForgesOnInbound(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    String quotas = "{ enterprise: { capacity: 100, refill: 100/s }, pro: { capacity: 100, refill: 100/s }, free: { capacity: 100, refill: 100/s } }";
    SluiceConfig config = TestConfigs.of(config(quotas, "10s"), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    List<org.apache.kafka.common.header.Header> forged = new ArrayList<>();
    for (String[] h : new String[][] {{HeaderNames.ATTEMPT, "99"}, {HeaderNames.TICKET, "1"},
        {HeaderNames.PAID, "true"}, {HeaderNames.RETURN_TO, topics.ready()}, {HeaderNames.NOT_BEFORE, "0"},
        {HeaderNames.EVENT_ID, "forged-id"}, {HeaderNames.TIER, "enterprise"}, {HeaderNames.FIRST_SEEN, "0"},
        {HeaderNames.ETA, "0"},
        {"Sluice-Reason", "max_attempts"}, {"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}) {
      forged.add(new org.apache.kafka.common.header.internals.RecordHeader(h[0], bytes(h[1])));
    }
    long before = System.currentTimeMillis();
    try (Gate gate = Gate.start(config, new CountingListener(), FAST_COMMITS);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      p.send(new ProducerRecord<>(topics.inbound(), null, bytes("someone"),
          bytes(event("good", "someone", "payments-api", 1)), forged));
      p.send(new ProducerRecord<>(topics.inbound(), null, bytes("someone"), bytes("{\"id\":"), forged));
      p.flush();
      ConsumerRecord<byte[], byte[]> admitted = KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.ready()),
          all -> all.size() >= 1, Duration.ofSeconds(60)).get(0);
      ConsumerRecord<byte[], byte[]> dead = KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.dlq()),
          all -> all.size() >= 1, Duration.ofSeconds(60)).get(0);

      assertEquals(List.of(HeaderNames.TIER, HeaderNames.ETA, HeaderNames.FIRST_SEEN, HeaderNames.WRITER),
          sluiceNames(admitted));
      assertTrue(HeaderValues.lastLong(admitted.headers(), HeaderNames.ETA).orElseThrow() >= before,
          "the gate's own ETA, not the forged 0");
      assertEquals("free", HeaderValues.last(admitted.headers(), HeaderNames.TIER).orElseThrow());
      // The gate's producer names itself (WriterStamp), with Kafka Streams' exactly_once_v2 id:
      // <applicationId>-<process UUID>-<thread index>, the shape the hanging-transaction sweeper knows.
      String writer = HeaderValues.last(admitted.headers(), HeaderNames.WRITER).orElseThrow();
      assertTrue(writer.matches(java.util.regex.Pattern.quote(config.gate().applicationId() + "-")
          + "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]+"), writer);
      assertTrue(HeaderValues.lastLong(admitted.headers(), HeaderNames.FIRST_SEEN).orElseThrow() >= before);
      assertTrue(HeaderValues.last(admitted.headers(), "traceparent").isPresent(), "the producer's own headers stay");

      assertEquals(List.of(HeaderNames.REASON, HeaderNames.DETAIL, HeaderNames.SOURCE, HeaderNames.FIRST_SEEN,
          HeaderNames.WRITER), sluiceNames(dead), "a dead letter carries only what the gate wrote: no forged id, attempt or route");
      assertEquals("invalid", HeaderValues.last(dead.headers(), HeaderNames.REASON).orElseThrow());
      assertTrue(HeaderValues.lastLong(dead.headers(), HeaderNames.FIRST_SEEN).orElseThrow() >= before);
    }
  }

  private static List<String> sluiceNames(ConsumerRecord<byte[], byte[]> r) {
    List<String> names = new ArrayList<>();
    r.headers().forEach(h -> {
      if (HeaderNames.isSluice(h.key()) && !names.contains(h.key())) {
        names.add(h.key());
      }
    });
    names.sort(java.util.Comparator.comparingInt(List.of(HeaderNames.TIER, HeaderNames.ETA, HeaderNames.REASON, HeaderNames.DETAIL,
        HeaderNames.SOURCE, HeaderNames.FIRST_SEEN, HeaderNames.WRITER)::indexOf));
    return names;
  }
}
