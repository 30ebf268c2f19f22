package io.sluice.dispatcher.ops;

import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Reservoir;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Dropwizard histogram that also keeps the exact sum of every value it was given, so that
 * {@link PrometheusText} can expose a summary's {@code _sum} (and a dashboard can show the mean
 * as {@code rate(x_sum[1m]) / rate(x_count[1m])}).
 *
 * <p>Why a subclass: Dropwizard keeps a sample of recent values (the reservoir) and a count, never
 * the total. Estimating it as {@code mean x count} from the sample would make {@code _sum} jump
 * backwards when the sample decays, and Prometheus treats {@code _sum} as a counter. Plain
 * histograms are exported without {@code _sum}; register this one where the sum matters:
 * {@code registry.histogram(name, SummingHistogram::new)}.
 */
public class SummingHistogram extends Histogram {
  private final LongAdder sum = new LongAdder();

  public SummingHistogram() {
    this(new ExponentiallyDecayingReservoir());
  }

  public SummingHistogram(Reservoir reservoir) {
    super(reservoir);
  }

  /** {@link Histogram#update(int)} delegates here too, so every value is summed once. */
  @Override
  public void update(long value) {
    sum.add(value);
    super.update(value);
  }

  /** The sum of every value ever given (wraps only after 2^63, far beyond any run). */
  public long sum() {
    return sum.sum();
  }
}
