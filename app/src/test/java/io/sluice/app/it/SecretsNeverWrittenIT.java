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
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 22: a provider's secrets never leave the request. A dispatcher with a bearer token and a
 * Standard Webhooks secret from the environment calls a provider that echoes every request
 * header back in its body, refusing a third of the calls (422, dead-lettered with the body
 * excerpt), failing a third once (500, deferred with the excerpt, then delivered) and taking the
 * rest (200, the excerpt in the outcome). Then every output of the run is searched for the
 * secrets: the log (everything written to stdout and stderr meanwhile), every record of every
 * topic (key, value, each header), the dispatcher's health problem, the configuration as shown,
 * and a start-up error made with the same secrets.
 */
@ExtendWith(RealServers.class)
class SecretsNeverWrittenIT {
  private static final String TOKEN = "tok-IT-" + Long.toHexString(System.nanoTime()) + "-5ecret";
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(UTF_8);
  private static final String WHSEC = "whsec_" + Base64.getEncoder().encodeToString(KEY);
  private static final int EVENTS = 30;

  @Test
  @DisplayName("no secret in any log line, record, header, health problem or config shown")
  void secretsAppearNowhere(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    List<String> secrets = List.of(TOKEN, WHSEC, WHSEC.substring(6), "Bearer " + TOKEN);
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    AtomicInteger calls = new AtomicInteger();
    Map<String, Integer> seen = new HashMap<>();
    HttpServer provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    provider.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      calls.incrementAndGet();
      String id = exchange.getRequestHeaders().getFirst("webhook-id");
      int n = Integer.parseInt(id.substring(1));
      int attempt = seen.merge(id, 1, Integer::sum);
      // The whole request's headers, echoed: Authorization and webhook-signature included.
      byte[] echo = new TreeMap<>(exchange.getRequestHeaders()).toString().getBytes(UTF_8);
      int status = n % 3 == 0 ? 422 : n % 3 == 1 && attempt == 1 ? 500 : 200;
      exchange.getResponseHeaders().add("X-Echo-Auth", exchange.getRequestHeaders().getFirst("Authorization"));
      exchange.sendResponseHeaders(status, echo.length);
      exchange.getResponseBody().write(echo);
      exchange.close();
    });
    provider.start();
    List<AutoCloseable> closing = new ArrayList<>();
    String name = Providers.uniqueName("secret");
    String yaml = """
        ladder: [250ms, 1s]
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: http://127.0.0.1:%d/hooks
            rate: 100/s
            auth: { bearer: "${env:IT_PARTNER_TOKEN}" }
            signing: { standardWebhooks: { secrets: ["${env:IT_WHSEC}"] } }
            capture: { headers: [X-Echo-Auth], bodyBytes: 2048 }
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(name, provider.getAddress().getPort());
    Map<String, String> env = new HashMap<>(Pipeline.env(kafka, redis.uri()));
    env.put("IT_PARTNER_TOKEN", TOKEN);
    env.put("IT_WHSEC", WHSEC);
    SluiceConfig config = ConfigLoader.parse(yaml, env);
    Topics topics = Pipeline.createTopics(config, kafka, 1);
    List<Ready> events = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < EVENTS; i++) {
      events.add(new Ready("s" + i, "tenant-" + (i % 3), "std", name));
      ids.add("s" + i);
    }
    Pipeline.produceReady(kafka, topics, events);

    StringBuilder outputs = new StringBuilder();
    Map<String, String> settled;
    System.setOut(new PrintStream(new TeeStream(out, log), true, UTF_8));
    System.setErr(new PrintStream(new TeeStream(err, log), true, UTF_8));
    try {
      closing.add(io.sluice.relay.RelayService.start(config,
          io.sluice.relay.RelayListener.NONE));
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), DispatchListener.NONE)) {
        settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
        outputs.append(d.dispatcher.problem().orElse("")).append('\n');
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
        provider.stop(0);
      }
      try {
        ConfigLoader.parse(yaml + "    method: GET\n", env);
      } catch (ConfigException e) {
        outputs.append(e.getMessage()).append('\n');
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    assertEquals(EVENTS / 3, settled.values().stream().filter("non_retryable_4xx"::equals).count(),
        "a third refused: " + settled);
    assertEquals(EVENTS - EVENTS / 3, settled.values().stream().filter("outcome"::equals).count());

    outputs.append(log.toString(UTF_8)).append('\n').append(config).append('\n');
    int records = 0;
    try (KafkaConsumer<byte[], byte[]> c = Pipeline.reader(kafka)) {
      List<String> every = new ArrayList<>(topics.partitionCounts(1, 1).keySet());
      c.subscribe(every);
      List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
      Await.untilRead("every record of every topic", Duration.ofSeconds(20), () -> {
        c.poll(Duration.ofMillis(500)).forEach(read::add);
        return read.size();
      }, n -> n >= 2 * EVENTS);
      c.poll(Duration.ofSeconds(1)).forEach(read::add);
      for (ConsumerRecord<byte[], byte[]> r : read) {
        records++;
        outputs.append(r.topic()).append(' ').append(text(r.key())).append(' ')
            .append(text(r.value())).append('\n');
        for (Header h : r.headers()) {
          outputs.append(h.key()).append('=').append(text(h.value())).append('\n');
        }
      }
    }
    String all = outputs.toString();
    assertTrue(all.contains("provider answered 422") && all.contains("\"body\""),
        "the excerpts were written (else the search below proves nothing)");
    assertTrue(all.contains("Authorization=[***]") || all.contains("authorization=[***]"),
        "the echoed credential is there, masked");
    for (String secret : secrets) {
      assertEquals(-1, all.indexOf(secret), "a secret in the output of the run (" + records
          + " records, " + all.length() + " characters searched)");
    }
    System.out.printf("secrets: 0 hits over %d characters (%d records of %d topics, the log, "
        + "the health problem, the config, a config error); %d provider calls%n", all.length(),
        records, topics.partitionCounts(1, 1).size(), calls.get());
  }

  private static String text(byte[] bytes) {
    return bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
  }

  /** Writes to the original stream and to the captured log. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int x) throws java.io.IOException {
      a.write(x);
      synchronized (b) {
        b.write(x);
      }
    }

    @Override
    public void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      synchronized (b) {
        b.write(bytes, off, len);
      }
    }
  }
}
