package io.sluice.dispatcher.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderRequest;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/**
 * A provider's calls run on its client's {@value HttpProvider#EXCHANGE_THREADS} exchange threads,
 * however many are in flight: the JDK's default, a cached pool, started a thread for every task
 * no idle one took (a hundred at 1,000 endpoints, handing tasks to each other).
 */
class HttpProviderExchangeThreadsTest {
  @Test
  void fiftyCallsInFlightAreCarriedByTwoExchangeThreads() throws Exception {
    HttpClient client = HttpProvider.defaultClient(Duration.ofSeconds(5));
    ThreadPoolExecutor exchanges = assertInstanceOf(ThreadPoolExecutor.class,
        client.executor().orElseThrow());
    try (RecordingReceiver receiver = RecordingReceiver.ok();
        HttpProvider http = new HttpProvider(
            ProviderConfigs.http(receiver.url("/hooks"), ProviderRequest.DEFAULT), client)) {
      List<CompletableFuture<ProviderResult>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(http.call(new ProviderCall("e-" + i, null, "{}".getBytes(), Map.of(), 1))
            .toCompletableFuture());
      }
      for (CompletableFuture<ProviderResult> call : calls) {
        assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call.get()).status());
      }
    }
    assertTrue(exchanges.getCompletedTaskCount() >= 50, exchanges.toString());
    assertEquals(HttpProvider.EXCHANGE_THREADS, exchanges.getLargestPoolSize(), exchanges.toString());
  }
}
