package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.Settlement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.config.ConfigLoader;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.redis.tenants.TenantInput;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.redis.tenants.TenantWatcher;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tenant's endpoint set in the registry in a real redis-server, followed by a dispatcher's
 * endpoint lanes through a {@link TenantWatcher} as the application wires them, calling real HTTP
 * endpoints: the registry's endpoint gets the calls, a change moves the next event within a poll,
 * and once the record is deleted the file's endpoint gets them again. No Kafka: the lanes are
 * given their events as the dispatcher's consumer loop gives them.
 */
@ExtendWith(RealServers.class)
class RegistryEndpointsIT {
  @Test
  void aTenantsSetMovesTheTenantsCallsWithoutARestart(RedisServerProcess redis) throws Exception {
    RedisClient client = RedisClient.create(redis.uri());
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        MockProvider file = MockProvider.start(100, Duration.ZERO);
        MockProvider first = MockProvider.start(100, Duration.ZERO);
        MockProvider second = MockProvider.start(100, Duration.ZERO)) {
      List<String> keys = connection.sync().keys("sluice:v1:{tenants}*");
      if (!keys.isEmpty()) {
        connection.sync().del(keys.toArray(String[]::new));
      }
      SluiceConfig config = ConfigLoader.parse("""
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            hooks:
              endpoints: perTenant
              allowPrivateNetworks: true
              allowPlainHttp: true
              rate: 20/s
              timeout: 2s
              quotas: { std: { capacity: 10, refill: 1/s } }
          tenants:
            acme: { endpoints: { hooks: "%s" } }
          """.formatted(file.url()), Map.of());
      ProviderConfig hooks = config.providers().get("hooks");
      TenantRegistry registry = new TenantRegistry(connection.async());
      await(registry.put("acme", set(config, "hooks=" + first.url() + "/in?token=s3cret"), "it"));
      HttpProvider http = HttpProvider.of("hooks", hooks);
      try (TenantWatcher watcher = TenantWatcher.start(registry, 100)) {
        TenantEndpoints endpoints = new TenantEndpoints(EndpointParts.of(
            Map.of("hooks", http), new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1),
            LimitLearner.local(DispatchListener.NONE), timer, (lane, entry, result, at) -> Settlement.NONE,
            (entry, why) -> {}, DispatchListener.NONE, Clock.systemUTC(),
            System::nanoTime, 100_000, 100), Map.of("std", 1.0), watcher);

        send(endpoints, hooks, config, "e1");
        Await.until("the registry's endpoint is called", Duration.ofSeconds(5),
            () -> first.callCount() == 1);
        assertEquals(first.url().getPath() + "/in?token=s3cret", first.calls().get(0).path(),
            "called at the URL as set, query included");

        long changed = System.nanoTime();
        await(registry.put("acme", set(config, "hooks=" + second.url()), "it"));
        Await.until("the dispatcher's watcher has the change", Duration.ofSeconds(5),
            () -> endpointOf(watcher, config).equals(second.url().toString()));
        send(endpoints, hooks, config, "e2");
        Await.until("the new endpoint is called", Duration.ofSeconds(5),
            () -> second.callCount() == 1);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changed);
        assertTrue(tookMillis < 3_000, "moved within a poll and a call: " + tookMillis + " ms");
        assertEquals(1, first.callCount(), "nothing more to the old endpoint");

        await(registry.delete("acme", "it"));
        Await.until("the delete is seen", Duration.ofSeconds(5),
            () -> watcher.registered("acme") == null);
        send(endpoints, hooks, config, "e3");
        Await.until("the file's endpoint is called again", Duration.ofSeconds(5),
            () -> file.callCount() == 1);
        assertEquals(1, second.callCount());
        endpoints.close();
      } finally {
        http.close();
        List<String> left = connection.sync().keys("sluice:v1:{tenants}*");
        if (!left.isEmpty()) {
          connection.sync().del(left.toArray(String[]::new));
        }
      }
    } finally {
      timer.shutdownNow();
      client.shutdown();
    }
  }

  /** What {@code sluice tenants set acme --endpoint SPEC} writes. */
  private static TenantRecord set(SluiceConfig config, String spec) {
    return TenantInput.fromCommandLine(config, null,
        new TenantInput.Changes(null, null, null, List.of(spec), null));
  }

  private static String endpointOf(TenantWatcher watcher, SluiceConfig config) {
    return TenantRecord.endpointOf(config, "hooks", "acme", watcher.registered("acme"))
        .map(TenantEndpoint::url).map(Object::toString).orElse("");
  }

  private static void send(TenantEndpoints endpoints, ProviderConfig hooks, SluiceConfig config,
      String id) {
    LaneRoute route = endpoints.route(TenantEndpointsTest.entry(id, "acme"), hooks, config);
    assertInstanceOf(LaneRoute.Queue.class, route, id).lane()
        .offer(TenantEndpointsTest.entry(id, "acme"));
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }
}
