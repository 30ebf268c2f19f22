package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22, OAuth2 through the whole dispatcher: the token endpoint is down when the dispatcher
 * starts, then hands out tokens that expire after 3 s; the provider accepts only live tokens,
 * and refuses the first token ever issued (revoked). Every event is delivered, each with its
 * first attempt (waiting for a token and the 401 that asked for a new one spend none), no call
 * goes out without a token or with an expired one, and no event is dead.
 */
@ExtendWith(RealServers.class)
class OAuth2PipelineIT {
  private static final int EVENTS = 120;

  @Test
  @DisplayName("endpoint down at start, 3 s tokens, a revoked token: all delivered at attempt 1, none unauthorized")
  void deliversThroughTokenOutagesAndRefreshes(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    Map<String, Long> expiresAt = new ConcurrentHashMap<>();
    AtomicInteger issued = new AtomicInteger();
    AtomicInteger tokenRequests = new AtomicInteger();
    Map<String, AtomicInteger> calls = new TreeMap<>();
    for (String kind : List.of("valid", "revoked", "expired", "none")) {
      calls.put(kind, new AtomicInteger());
    }
    java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean(true);
    Map<io.sluice.schemas.event.Reason, AtomicInteger> deferred = new ConcurrentHashMap<>();
    DispatchListener listener = new DispatchListener() {
      @Override
      public void deferred(String provider, String tier, io.sluice.schemas.event.Reason reason) {
        deferred.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
      }
    };
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", exchange -> {
      exchange.getRequestBody().readAllBytes();
      tokenRequests.incrementAndGet();
      byte[] answer;
      int status;
      if (down.get()) {
        status = 503;
        answer = "{\"error\":\"temporarily_unavailable\"}".getBytes(UTF_8);
      } else {
        String token = "at-" + issued.incrementAndGet();
        expiresAt.put(token, System.currentTimeMillis() + 3_000);
        status = 200;
        answer = ("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":3}")
            .getBytes(UTF_8);
      }
      exchange.sendResponseHeaders(status, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    server.createContext("/api", exchange -> {
      exchange.getRequestBody().readAllBytes();
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      String token = auth == null || !auth.startsWith("Bearer ") ? null : auth.substring(7);
      Long until = token == null ? null : expiresAt.get(token);
      String kind = token == null || until == null ? "none" : token.equals("at-1") ? "revoked"
          : System.currentTimeMillis() >= until ? "expired" : "valid";
      calls.get(kind).incrementAndGet();
      exchange.sendResponseHeaders(kind.equals("valid") ? 200 : 401, -1);
      exchange.close();
    });
    server.start();
    String name = Providers.uniqueName("oauth");
    int port = server.getAddress().getPort();
    Map<String, String> env = new HashMap<>(Pipeline.env(kafka, redis.uri()));
    env.put("IT_CLIENT_SECRET", "it-client-secret");
    SluiceConfig config = ConfigLoader.parse("""
        ladder: [250ms, 1s]
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: http://127.0.0.1:%d/api
            rate: 20/s
            auth:
              oauth2: { tokenUrl: "http://127.0.0.1:%d/token", clientId: sluice,
                        clientSecret: "${env:IT_CLIENT_SECRET}" }
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(name, port, port), env);
    Topics topics = Pipeline.createTopics(config, kafka, 1);
    List<Ready> events = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      events.add(new Ready("o" + i, "tenant-" + (i % 4), "std", name));
    }
    Pipeline.produceReady(kafka, topics, events);

    List<AutoCloseable> closing = new ArrayList<>();
    Map<String, Integer> attempts = new TreeMap<>();
    Map<String, String> dead = new TreeMap<>();
    try {
      closing.add(RelayService.start(config, RelayListener.NONE));
      Map<String, io.sluice.dispatcher.provider.Provider> providers = Providers.http(config);
      closing.addAll(providers.values());
      try (Running d = new Running(config, "dispatcher", providers,
          Providers.redisLeak(config, closing), listener);
          KafkaConsumer<byte[], byte[]> c = Pipeline.reader(kafka)) {
        // Down until events have been held back for it (and the fetch retried), then up.
        Await.until("events deferred for want of a token", Duration.ofSeconds(30),
            () -> tokenRequests.get() >= 2 && deferred.containsKey(
                io.sluice.schemas.event.Reason.CREDENTIAL_UNAVAILABLE));
        down.set(false);
        c.subscribe(List.of(topics.outcomes(), topics.dlq()));
        Await.untilRead("every event settled", Duration.ofSeconds(90), () -> {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            String id = HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).orElse("?");
            if (r.topic().equals(topics.outcomes())) {
              attempts.put(id, HeaderValues.lastLong(r.headers(), HeaderNames.ATTEMPT)
                  .orElse(-1L).intValue());
            } else {
              dead.put(id, HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("?"));
            }
          }
          return attempts.size() + dead.size();
        }, n -> n >= EVENTS);
      }
    } finally {
      for (AutoCloseable c : closing) {
        c.close();
      }
      server.stop(0);
    }
    System.out.printf("oauth2 pipeline: %d delivered, %d dead; calls by token %s; %d tokens "
        + "issued over %d token requests; deferrals %s%n", attempts.size(), dead.size(), calls,
        issued.get(), tokenRequests.get(), deferred);
    assertEquals(Map.of(), dead, "no event dead (unauthorized or otherwise)");
    assertEquals(EVENTS, attempts.size());
    assertTrue(attempts.values().stream().allMatch(a -> a == 1),
        "every event delivered at its first attempt: " + attempts);
    assertEquals(0, calls.get("none").get(), "no call without a token");
    assertEquals(0, calls.get("expired").get(), "no call with an expired token");
    assertTrue(calls.get("revoked").get() >= 1, "the revoked token was refused at least once");
    assertTrue(issued.get() >= 3, "tokens replaced as they expire: " + issued.get());
  }
}
