package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.UniformReservoir;
import io.sluice.app.ops.PrometheusTextParser.Exposition;
import io.sluice.app.ops.PrometheusTextParser.Family;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The registry as Prometheus text, through Prometheus' Dropwizard bridge and text writer. */
class PrometheusExpositionTest {
  private final MetricRegistry registry = new MetricRegistry();

  private String render() {
    String text = new PrometheusExposition(registry).render();
    ExpositionGrammar.assertEveryLineValid(text);
    return text;
  }

  private Exposition scrape() {
    return PrometheusTextParser.parse(render());
  }

  private static long lines(String text, String prefix) {
    return Arrays.stream(text.split("\n")).filter(l -> l.startsWith(prefix)).count();
  }

  @Test
  void shouldExposeACounterAsATotalWithOneHelpAndTypeForAllItsSeries() {
    registry.counter(MetricNames.name("sluice_gate_admitted", "tier", "pro", "provider", "payments-api")).inc(42);
    registry.counter(MetricNames.name("sluice_gate_admitted", "tier", "free", "provider", "payments-api")).inc(7);

    String text = render();

    assertEquals("""
        # HELP sluice_gate_admitted_total sluice_gate_admitted (Dropwizard counter)
        # TYPE sluice_gate_admitted_total counter
        sluice_gate_admitted_total{provider="payments-api",tier="free"} 7.0
        sluice_gate_admitted_total{provider="payments-api",tier="pro"} 42.0
        """, text);
  }

  @Test
  void shouldExposeNumericGaugesAndBooleansAsOneOrZero() {
    AtomicLong depth = new AtomicLong(12);
    registry.gauge(MetricNames.name("sluice_buffer_depth", "provider", "a"), () -> depth::get);
    registry.gauge(MetricNames.name("sluice_rate_factor", "provider", "a"), () -> () -> 0.25);
    registry.gauge(MetricNames.name("sluice_breaker_open", "provider", "a"), () -> () -> true);

    Exposition scrape = scrape();

    assertEquals("gauge", scrape.family("sluice_buffer_depth").orElseThrow().type());
    assertEquals(12, scrape.value("sluice_buffer_depth", "provider", "a").getAsDouble());
    assertEquals(0.25, scrape.value("sluice_rate_factor", "provider", "a").getAsDouble());
    assertEquals(1, scrape.value("sluice_breaker_open", "provider", "a").getAsDouble());
  }

  @Test
  void shouldReadAGaugeAgainOnEveryScrape() {
    AtomicLong depth = new AtomicLong(1);
    registry.gauge(MetricNames.name("sluice_dispatch_buffered", "provider", "a"), () -> depth::get);
    PrometheusExposition exposition = new PrometheusExposition(registry);
    exposition.render();
    depth.set(5);

    assertEquals(5, PrometheusTextParser.parse(exposition.render())
        .value("sluice_dispatch_buffered", "provider", "a").getAsDouble());
  }

  @Test
  void shouldWriteNaNAndInfinitiesInGoSyntax() {
    registry.gauge("nan", () -> () -> Double.NaN);
    registry.gauge("up", () -> () -> Double.POSITIVE_INFINITY);
    registry.gauge("down", () -> () -> Double.NEGATIVE_INFINITY);

    String text = render();

    assertTrue(text.contains("\nnan NaN\n"), text);
    assertTrue(text.contains("\nup +Inf\n"), text);
    assertTrue(text.contains("\ndown -Inf\n"), text);
  }

  @Test
  void shouldLeaveOutGaugesThatAreNotNumbersOrThatThrowAndKeepEverythingElse() {
    registry.gauge("words", () -> () -> "not a number");
    registry.gauge("broken", () -> (Gauge<Long>) () -> {
      throw new IllegalStateException("boom");
    });
    registry.counter("kept").inc();

    Exposition scrape = scrape();

    assertTrue(scrape.family("words").isEmpty());
    assertTrue(scrape.family("broken").isEmpty());
    assertEquals(1, scrape.value("kept_total").getAsDouble());
  }

  @Test
  void shouldExposeAMeterAsACounter() {
    registry.meter(MetricNames.name("sluice_dispatch_calls", "provider", "a")).mark(5);
    registry.meter(MetricNames.name("sluice_dispatch_calls", "provider", "b")).mark(2);

    Exposition scrape = scrape();

    assertEquals("counter", scrape.family("sluice_dispatch_calls_total").orElseThrow().type());
    assertEquals(5, scrape.value("sluice_dispatch_calls_total", "provider", "a").getAsDouble());
    assertEquals(2, scrape.value("sluice_dispatch_calls_total", "provider", "b").getAsDouble());
  }

  @Test
  void shouldExposeAHistogramAsASummaryWithQuantilesAndCountButNoGuessedSum() {
    Histogram histogram = registry.histogram(MetricNames.name("sluice_batch_size", "provider", "a"),
        () -> new Histogram(new UniformReservoir()));
    for (int i = 1; i <= 100; i++) {
      histogram.update(i);
    }

    Exposition scrape = scrape();

    Family family = scrape.family("sluice_batch_size").orElseThrow();
    assertEquals("summary", family.type());
    for (String quantile : List.of("0.5", "0.75", "0.95", "0.98", "0.99", "0.999")) {
      double expected = Math.min(100, Double.parseDouble(quantile) * 100);
      assertEquals(expected, scrape.value("sluice_batch_size", "provider", "a", "quantile", quantile)
          .getAsDouble(), 1.0, quantile);
    }
    assertEquals(100, scrape.value("sluice_batch_size_count", "provider", "a").getAsDouble());
    assertTrue(scrape.samples("sluice_batch_size_sum").isEmpty(), "Dropwizard keeps no exact sum");
  }

  @Test
  void shouldExposeATimerAsASummaryInSeconds() {
    Timer timer = registry.timer(MetricNames.name("sluice_provider_latency_seconds", "provider", "a"));
    timer.update(Duration.ofMillis(250));
    timer.update(750, TimeUnit.MILLISECONDS);
    timer.time(() -> { }); // the Runnable path records too, a few microseconds

    Exposition scrape = scrape();

    Family family = scrape.family("sluice_provider_latency_seconds").orElseThrow();
    assertEquals("summary", family.type());
    assertEquals(3, scrape.value("sluice_provider_latency_seconds_count", "provider", "a").getAsDouble());
    assertEquals(0.75, scrape.value("sluice_provider_latency_seconds", "provider", "a", "quantile", "0.99")
        .getAsDouble(), 1e-9);
  }

  @Test
  void shouldRoundTripLabelValuesWithBackslashQuoteAndLineFeed() {
    String nasty = "C:\\path \"quoted\"\nnext line, {braces}=x";
    registry.counter(MetricNames.name("sluice_dead", "reason", nasty)).inc(3);

    Exposition scrape = scrape();

    assertEquals(3, scrape.value("sluice_dead_total", "reason", nasty).getAsDouble());
  }

  @Test
  void shouldWriteOneHelpAndTypePerFamilyWithEveryFamilyContiguous() {
    for (String tier : new String[] {"enterprise", "free", "pro"}) {
      registry.counter(MetricNames.name("sluice_gate_admitted", "tier", tier)).inc();
      registry.counter(MetricNames.name("sluice_gate_deferred", "tier", tier)).inc();
      registry.timer(MetricNames.name("sluice_gate_lease_seconds", "tier", tier)).update(Duration.ofMillis(1));
      registry.meter(MetricNames.name("sluice_gate_calls", "tier", tier)).mark();
    }

    String text = render();
    Exposition scrape = PrometheusTextParser.parse(text); // strict: refuses a family split in two

    assertEquals(4, scrape.families().size(), text);
    for (Family family : scrape.families()) {
      assertEquals(1, lines(text, "# TYPE " + family.name() + " "), family.name());
      assertEquals(1, lines(text, "# HELP " + family.name() + " "), family.name());
    }
    assertEquals(3 * 7, scrape.family("sluice_gate_lease_seconds").orElseThrow().samples().size(),
        "three tiers, each six quantiles plus _count");
  }

  @Test
  void shouldNeverExportAMetricWhoseRegistryNameCarriesATenantLabel() {
    registry.counter("sluice_gate_admitted{tenant=\"acme\"}").inc();
    registry.counter(MetricNames.name("sluice_gate_admitted", "tier", "pro")).inc();

    String text = render();

    assertFalse(text.contains("acme"), text);
    assertEquals(1, PrometheusTextParser.parse(text).samples("sluice_gate_admitted_total").size());
  }

  @Test
  void shouldKeepTheFirstOfTwoNamesThatSanitizeToTheSameSeries() {
    registry.counter("a.b").inc(1);
    registry.counter("a_b").inc(2);

    Exposition scrape = scrape();

    assertEquals(1, scrape.samples("a_b_total").size());
    assertEquals(1, scrape.value("a_b_total").getAsDouble(), "registry order: a.b before a_b");
  }

  @Test
  void shouldLeaveOutAMetricWhoseFamilyExistsWithAnotherType() {
    registry.counter("depth.now").inc(3);                 // family depth_now, a counter
    registry.gauge("depth_now", () -> () -> 9);           // the same family name, as a gauge

    Exposition scrape = scrape();

    assertEquals("counter", scrape.family("depth_now_total").orElseThrow().type());
    assertTrue(scrape.family("depth_now").isEmpty());
  }

  @Test
  void shouldNotExportANameEndingInASuffixTheFormatAdds() {
    registry.gauge("queue_count", () -> () -> 9); // would collide with a summary named queue
    registry.histogram("queue").update(1);

    Exposition scrape = scrape();

    assertEquals(List.of(1.0), scrape.samples("queue_count").stream().map(s -> s.value()).toList());
  }

  @Test
  void shouldRenderAnEmptyRegistryAsNothing() {
    assertEquals("", render());
  }
}
