package io.sluice.dispatcher.leak;

import io.sluice.config.DispatcherConfig;
import java.util.concurrent.TimeUnit;

/**
 * How a provider's leak reacts to 429s, the same for every provider of a deployment.
 *
 * @param minRateFactor  the deepest cut: the effective rate never drops below this fraction of the
 *                       configured rate, in (0, 1]
 * @param recoveryMicros how long a cut rate takes to climb back, linearly, to the configured rate;
 *                       &gt; 0
 */
public record LeakConfig(double minRateFactor, long recoveryMicros) {
  public LeakConfig {
    if (!(minRateFactor > 0 && minRateFactor <= 1)) {
      throw new IllegalArgumentException("minRateFactor must be in (0, 1], not " + minRateFactor);
    }
    if (recoveryMicros <= 0) {
      throw new IllegalArgumentException("recovery must be positive, not " + recoveryMicros + " us");
    }
  }

  public static LeakConfig of(DispatcherConfig dispatcher) {
    return new LeakConfig(dispatcher.minRateFactor(), TimeUnit.MICROSECONDS.convert(dispatcher.recovery()));
  }
}
