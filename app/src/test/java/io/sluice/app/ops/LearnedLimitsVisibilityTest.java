package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.SluiceMetrics;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an operator sees of the limits learned from a provider's answers. */
class LearnedLimitsVisibilityTest {
  private final MetricRegistry registry = new MetricRegistry();
  private final SluiceMetrics metrics = new SluiceMetrics(registry);
  private final AtomicLong clock = new AtomicLong(1_795_467_600_000L);
  private final LimitLearner learner = new LimitLearner(
      io.sluice.dispatcher.feedback.LearnedLimitStore.NONE, clock::get, () -> 0.5, metrics);

  private void answer(String... headers) {
    learner.answered("api", new ProviderResult.Answered(200, null, ResponseHeaders.of(headers)), 10);
  }

  private String exposition() {
    String text = new PrometheusExposition(registry).render();
    ExpositionGrammar.assertEveryLineValid(text);
    return text;
  }

  @Test
  @DisplayName("/metrics: each learned limit's quota by unit and window, while it lives; malformed fields and holds counted")
  void metrics() {
    answer("RateLimit-Policy", "\"s\";q=20;w=1, \"c\";q=5000;w=60;qu=\"tokens\"",
        "RateLimit", "\"c\";r=0;t=2", "X-RateLimit-Reset", "whenever");
    String text = exposition();
    assertTrue(text.contains(
        "sluice_dispatch_learned_limit{provider=\"api\",unit=\"calls\",window_seconds=\"1\"} 20"), text);
    assertTrue(text.contains(
        "sluice_dispatch_learned_limit{provider=\"api\",unit=\"cost\",window_seconds=\"60\"} 5000"), text);
    assertTrue(text.contains("sluice_dispatch_learned_holds_total{provider=\"api\"} 1"), text);
    assertEquals(0, metrics.count("sluice_dispatch_limit_headers_malformed", "provider", "api",
        "header", "x-ratelimit-reset"), "X- families are not read beside the IETF fields");
    answer("RateLimit-Policy", "\"s\";q=twenty;w=1");
    assertEquals(1, metrics.count("sluice_dispatch_limit_headers_malformed", "provider", "api",
        "header", "ratelimit-policy"));
    clock.addAndGet(600_000);
    answer("RateLimit-Policy", "\"s\";q=10;w=1");
    text = exposition();
    assertTrue(text.contains(
        "sluice_dispatch_learned_limit{provider=\"api\",unit=\"calls\",window_seconds=\"1\"} 10"), text);
    assertFalse(text.contains("unit=\"cost\""), "a limit not stated again fades from /metrics");
  }

  @Test
  @DisplayName("/health: learnedLimits lists each provider's limits and its pace; never down")
  void health() {
    SluiceConfig config = ConfigLoader.parse("""
        kafka: { bootstrap: "localhost:9092" }
        redis: { uri: "redis://localhost:6379" }
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          api:
            url: http://localhost:9/x
            rate: 50/s
            maxCost: 10
            quotas: { std: { capacity: 10, refill: 1/s } }
        """, Map.of());
    LearnedLimitsHealth health = new LearnedLimitsHealth(learner, config);
    assertEquals(HealthCheck.Result.reachable("none learned"), health.check());
    answer("RateLimit-Policy", "\"calls-1s\";q=20;w=1, \"cost-60s\";q=5000;w=60;qu=\"cost\"");
    assertEquals(HealthCheck.Result.reachable("api: 20 calls/1s (calls-1s), 5000 cost/60s "
        + "(cost-60s); paced at 8.30/s of 50.00/s configured"), health.check());
  }

  @Test
  @DisplayName("a hostile answer: /health says which bound held back what, /metrics counts it by bound")
  void bounds() {
    SluiceConfig config = ConfigLoader.parse("""
        kafka: { bootstrap: "localhost:9092" }
        redis: { uri: "redis://localhost:6379" }
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          api:
            url: http://localhost:9/x
            rate: 20/s
            quotas: { std: { capacity: 10, refill: 1/s } }
          quiet:
            url: http://localhost:9/y
            rate: 20/s
            learn: false
            quotas: { std: { capacity: 10, refill: 1/s } }
        """, Map.of());
    learner.bound(Map.of("api", config.providers().get("api").answers(),
        "quiet", config.providers().get("quiet").answers()));
    LearnedLimitsHealth health = new LearnedLimitsHealth(learner, config);

    answer("RateLimit-Policy", "\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400");
    new io.sluice.dispatcher.feedback.LearningLimitSource("api",
        io.sluice.dispatcher.leak.LimitSource.fixed(
            io.sluice.dispatcher.leak.ProviderLimits.rateOnly(20)), learner).current();

    String detail = health.check().detail();
    assertTrue(detail.startsWith("api: 1 calls/86400s (daily); paced at 2.00/s of 20.00/s "
        + "configured; learnedFloor 0.10, maxRetryAfter 300s; held back: hold x1 (an answer "
        + "(status 200; ratelimit-policy: \"trap\";q=0;w=2678400, \"daily\";q=1;w=86400) "
        + "asked for a hold of 2678400500 ms; held 300000 ms (maxRetryAfter)), floor x1 ("),
        detail);
    assertTrue(detail.endsWith("; quiet: learning off"), detail);
    assertEquals(1, metrics.count("sluice_dispatch_answer_bounded", "provider", "api", "bound",
        "hold"));
    assertEquals(1, metrics.count("sluice_dispatch_answer_bounded", "provider", "api", "bound",
        "floor"));
  }
}
