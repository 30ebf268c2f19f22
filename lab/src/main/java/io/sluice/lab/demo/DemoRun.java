package io.sluice.lab.demo;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.SluiceApp;
import io.sluice.app.SluiceMetrics;
import io.sluice.app.TopicAdmin;
import io.sluice.app.Verify;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.embedded.InJvmKafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * The demo from start to report: servers (embedded, or the ones a config names), the mock
 * provider, every Sluice role, the load, live progress once a second, and the reconciliation.
 */
public final class DemoRun {
  private static final long SAMPLE_MILLIS = 250;

  /**
   * @param external Kafka and Redis to use instead of embedded ones (their kafka.bootstrap and
   *                 redis.uri are taken; everything else is the demo's own); null for embedded
   */
  public record Options(Duration duration, double rate, SluiceConfig external, PrintStream out) {}

  private DemoRun() {}

  public static DemoReport run(Options options) throws Exception {
    PrintStream out = options.out();
    DemoScenario scenario = new DemoScenario(options.rate(), options.duration());
    List<AutoCloseable> servers = new ArrayList<>();
    try {
      String bootstrap;
      String redisUri;
      if (options.external() == null) {
        out.println("demo: starting a Kafka broker inside this JVM and a redis-server on a free "
            + "port ...");
        InJvmKafkaBroker kafka = InJvmKafkaBroker.start();
        servers.add(kafka);
        RedisServerProcess redis = RedisServerProcess.start();
        servers.add(redis);
        bootstrap = kafka.bootstrapServers();
        redisUri = redis.uri();
      } else {
        bootstrap = options.external().kafka().bootstrap();
        redisUri = options.external().redis().uri();
      }
      // A strict provider: at most L calls in any sliding second, no burst tolerance, with the
      // leak at 0.96 L (see DemoScenario#providerLimit).
      MockProvider mock = MockProvider.start(scenario.providerLimit(), Duration.ofMillis(20));
      servers.add(mock);
      String prefix = "demo-" + UUID.randomUUID().toString().substring(0, 8) + ".";
      SluiceConfig config = ConfigLoader.parse(
          scenario.yaml(bootstrap, redisUri, mock.url(), prefix), Map.of());
      warmUp(config, mock);
      try (TopicAdmin admin = new TopicAdmin(config)) {
        admin.create(4, (short) 1);
      }
      SluiceMetrics metrics;
      MetricRegistry registry = new MetricRegistry();
      try (SluiceApp app = SluiceApp.start(config, EnumSet.allOf(SluiceApp.Role.class), null,
          registry, 0)) {
        metrics = app.metrics();
        out.printf("demo: Kafka %s, Redis %s, mock provider %s (at most %d calls in any second, "
                + "no burst: answers 429 beyond; the leak at %.0f/s), /metrics and /health on "
                + "http://localhost:%d%n", bootstrap, config.redis().redactedUri(), mock.url(),
            scenario.providerLimit(), options.rate(), app.httpPort());
        out.printf("demo: %d tenants in 3 tiers (weights 8:4:1) for %d s; a burst of %d events "
                + "at %d s; 5 malformed events%n", scenario.tenants().size(),
            options.duration().toSeconds(), Math.round(10 * options.rate()),
            options.duration().toSeconds() / 4);
        Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
        LoadGenerator load = new LoadGenerator(scenario, config.kafka(), topics.inbound());
        Thread loader = new Thread(load, "demo-load");
        List<Sample> samples = new ArrayList<>();
        long start = System.nanoTime();
        loader.start();
        long settleDeadline = start + options.duration().toNanos()
            + Math.max(Duration.ofSeconds(90).toNanos(), options.duration().toNanos() * 2);
        int settledFor = 0;
        long nextPrint = 1000;
        for (long tick = 1; ; tick++) {
          LockSupport.parkNanos(start + tick * SAMPLE_MILLIS * 1_000_000 - System.nanoTime());
          Sample s = sample(metrics, app, mock, load, (System.nanoTime() - start) / 1_000_000);
          samples.add(s);
          if (s.atMillis() >= nextPrint) {
            out.println(progress(s));
            nextPrint += 1000;
          }
          settledFor = load.done() && s.backlog() == 0 ? settledFor + 1 : 0;
          if (settledFor >= 4 || System.nanoTime() - settleDeadline > 0) {
            break;
          }
        }
        load.stop();
        loader.join();
        double elapsed = (System.nanoTime() - start) / 1e9;
        out.println("demo: load done and the backlog is empty; reconciling every id ...");
        Verify.Report verify = Verify.run(config.kafka(), topics, Duration.ofSeconds(60));
        return DemoFigures.report(scenario, samples, mock.calls(), start, mock.rateLimited(),
            metrics, verify, elapsed);
      }
    } finally {
      for (int i = servers.size() - 1; i >= 0; i--) {
        try {
          servers.get(i).close();
        } catch (Exception e) {
          out.println("demo: stopping " + servers.get(i) + " failed: " + e);
        }
      }
    }
  }

  /**
   * A cold JVM's first HTTP calls take up to 100 ms (class loading, JIT) and would reach the
   * provider together, a burst no dispatcher decided. A real deployment warms up long before its
   * first burst; the demo does it on purpose, then forgets those calls.
   */
  private static void warmUp(SluiceConfig config, MockProvider mock) {
    HttpProvider http = new HttpProvider(config.providers().get(DemoScenario.PROVIDER),
        HttpProvider.defaultClient(Duration.ofSeconds(5)));
    for (int i = 0; i < 200; i++) {
      http.call(new ProviderCall("warm-up-" + i, "warm-up", new byte[0], Map.of(), 1))
          .toCompletableFuture().join();
    }
    mock.reset();
  }

  private static Sample sample(SluiceMetrics m, SluiceApp app, MockProvider mock,
      LoadGenerator load, long atMillis) {
    Map<String, Long> calls = new LinkedHashMap<>();
    for (String tier : ReportWriter.TIERS) {
      calls.put(tier, m.count("sluice_dispatch_calls", "provider", DemoScenario.PROVIDER,
          "tier", tier));
    }
    long dead = m.sum("sluice_gate_dead") + m.sum("sluice_dispatch_dead")
        + m.sum("sluice_relay_dead");
    long buffered = app.dispatcher() == null ? 0 // being restarted
        : app.dispatcher().dispatcher().buffered().getOrDefault(DemoScenario.PROVIDER, 0);
    return new Sample(atMillis, calls, load.produced(), m.sum("sluice_gate_admitted"),
        m.sum("sluice_gate_deferred") + m.sum("sluice_dispatch_deferred"),
        m.sum("sluice_dispatch_delivered"), dead, buffered, mock.rateLimited());
  }

  static String progress(Sample s) {
    return String.format(Locale.ROOT,
        "[%4ds] produced %6d  admitted %6d  deferred %5d | dispatched enterprise %5d  pro %5d  "
            + "free %5d | backlog %5d (buffer %4d) | 429s %d | dlq %d",
        s.atMillis() / 1000, s.produced(), s.admitted(), s.deferred(),
        s.callsByTier().get("enterprise"), s.callsByTier().get("pro"),
        s.callsByTier().get("free"), s.backlog(), s.buffered(), s.provider429(), s.dead());
  }
}
