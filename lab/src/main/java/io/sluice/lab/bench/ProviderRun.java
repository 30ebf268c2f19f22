package io.sluice.lab.bench;

import io.sluice.embedded.mock.MockProvider;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A strict mock provider (at most {@code limit} calls in any sliding second, no burst tolerance,
 * answering at once) in this JVM, warmed up: a cold JVM's first HTTP calls take up to 100 ms
 * (class loading, JIT) and would arrive together, a burst no dispatcher decided, so 200 calls
 * are made and forgotten first (as the demo does).
 */
final class ProviderRun {
  private ProviderRun() {}

  static MockProvider start(int limit) {
    return MockProvider.start(limit, Duration.ZERO);
  }

  static void warmUp(SluiceConfig config, MockProvider mock) {
    HttpProvider http = new HttpProvider(config.providers().get(BenchConfig.PROVIDER),
        HttpProvider.defaultClient(Duration.ofSeconds(5)));
    for (int i = 0; i < 200; i++) {
      http.call(new ProviderCall("warm-up-" + i, "warm-up", new byte[0], Map.of(), 1))
          .toCompletableFuture().join();
    }
    mock.reset();
  }

  /** Arrival instants (nanoTime) of the calls within [from, to), in order. */
  static long[] arrivals(List<MockProvider.Call> calls, long from, long to) {
    return calls.stream().mapToLong(MockProvider.Call::atNanos)
        .filter(t -> t >= from && t < to).sorted().toArray();
  }
}
