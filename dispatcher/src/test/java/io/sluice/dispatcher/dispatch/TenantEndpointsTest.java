package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.Settlement;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.config.ConfigLoader;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.dispatcher.dispatch.lane.ManualTimer;
import io.sluice.dispatcher.dispatch.lane.SetPace;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.testkit.FakeClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * Where a per-tenant provider's events go, on a fake clock with the in-process leak: the
 * tenant's own endpoint, a dead letter without a call when it has none, and, with
 * {@code whileDisabled: dead_letter}, a dead letter while its endpoint is disabled.
 */
class TenantEndpointsTest {
  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final ManualTimer timer = new ManualTimer(clock);
  private final SluiceConfig config = ConfigLoader.parse("""
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers:
        hooks:
          endpoints: perTenant
          allowPrivateNetworks: true
          allowPlainHttp: true
          rate: 10/s
          disableAfter: 1s
          probeAfter: 5s
          whileDisabled: dead_letter
          quotas: { std: { capacity: 10, refill: 1/s } }
      tenants:
        acme: { endpoints: { hooks: "http://127.0.0.1:9/acme" } }
      """, Map.of());
  private final ProviderConfig hooks = config.providers().get("hooks");
  /** The endpoint each call went to. */
  private final List<URI> calledAt = new ArrayList<>();
  private final List<Reason> deadLettered = new ArrayList<>();
  private final List<ProviderResult> settled = new ArrayList<>();
  /** The status every endpoint answers. */
  private int status = 503;
  /** Every call times out instead. */
  private boolean timingOut;
  /** The tenants' registry records, as a dispatcher's watcher would give them. */
  private final Map<String, TenantRecord> registry = new HashMap<>();
  /** Tenants whose look-up does not answer (Redis slow or down, not kept). */
  private final java.util.Set<String> unanswered = new java.util.HashSet<>();
  private final TenantLookup lookup = new TenantLookup() {
    @Override
    public TenantRecord registered(String tenant) {
      return registry.get(tenant);
    }

    @Override
    public Answer answer(String tenant) {
      return unanswered.contains(tenant) ? Answer.unknown() : Answer.of(registry.get(tenant));
    }
  };

  /** The provider as configured; each endpoint's copy records where it was called and fails. */
  private final Provider provider = new Provider() {
    @Override
    public CompletionStage<ProviderResult> call(ProviderCall call) {
      throw new AssertionError("the provider's own URL is never called");
    }

    @Override
    public Provider toward(URI endpoint) {
      return call -> {
        calledAt.add(endpoint);
        return CompletableFuture.completedFuture(timingOut ? new ProviderResult.TimedOut("2s")
            : new ProviderResult.Answered(status, null));
      };
    }
  };

  private final TenantEndpoints endpoints = new TenantEndpoints(EndpointParts.of(
      Map.of("hooks", provider),
      new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
      LimitLearner.local(DispatchListener.NONE), timer,
      (lane, entry, result, claimedAt) -> {
        settled.add(result);
        return Settlement.NONE;
      },
      (entry, why) -> deadLettered.add(Reason.ENDPOINT_DISABLED), DispatchListener.NONE, clock,
      clock::nanos, 100_000, 100), Map.of("std", 1.0), lookup);

  @Test
  void shouldDeadLetterTheEventOfATenantWithoutAnEndpointWithoutACall() {
    LaneRoute route = endpoints.route(entry("e1", "nobody"), hooks, config);

    assertEquals(new LaneRoute.Dead(Reason.NO_ENDPOINT, "tenant nobody has no endpoint "
        + "toward hooks (tenants.nobody.endpoints.hooks, or sluice tenants set nobody --endpoint "
        + "hooks=URL)"), route);
    assertEquals(0, endpoints.size(), "no lane for it");
  }

  @Test
  void shouldCallTheTenantsOwnEndpointAndDeadLetterItsEventsOnceItIsDisabled() {
    ProviderLane lane = queue("e0");
    assertEquals("hooks/acme", lane.name());
    timer.advance(Duration.ZERO);
    assertEquals(List.of(URI.create("http://127.0.0.1:9/acme")), calledAt);

    // Three events every 200 ms toward an endpoint taking two a second... and answering 503.
    int offered = 1;
    LaneRoute route = null;
    for (int step = 1; step <= 10; step++) {
      for (int k = 0; k < 3; k++) {
        route = endpoints.route(entry("e" + offered, "acme"), hooks, config);
        if (route instanceof LaneRoute.Queue q) {
          q.lane().offer(entry("e" + offered, "acme"));
          offered++;
        }
      }
      timer.advance(Duration.ofMillis(200));
    }

    assertEquals(new LaneRoute.Dead(Reason.ENDPOINT_DISABLED, "the endpoint of tenant acme "
        + "toward hooks is disabled (it kept failing; whileDisabled: dead_letter)"), route,
        "disabled after 1 s of 503s: new events are dead-lettered without a call");
    assertEquals(offered, calledAt.size() + deadLettered.size(),
        "those queued when it was disabled were dead-lettered too");
    assertEquals(0, lane.queued());
    int calls = calledAt.size();
    timer.advance(Duration.ofSeconds(4));
    assertEquals(calls, calledAt.size(), "no call while disabled");

    timer.advance(Duration.ofSeconds(2));
    queue("probe");
    timer.advance(Duration.ofMillis(200));
    assertEquals(calls + 1, calledAt.size(), "its probe, once due, is one call");
  }

  @Test
  void shouldNotDisableAnEndpointForTimeoutsWhileTheDispatcherRanLate() {
    // Every call times out. While the dispatcher's pace says it ran late during them, they are
    // not held against the endpoint; once it is on time they are, and the endpoint is disabled.
    timingOut = true;
    SetPace pace = new SetPace();
    pace.late = true;
    TenantEndpoints paced = new TenantEndpoints(EndpointParts.of(
        Map.of("hooks", provider),
        new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
        LimitLearner.local(DispatchListener.NONE), timer,
        (lane, entry, result, claimedAt) -> {
        settled.add(result);
        return Settlement.NONE;
      },
        (entry, why) -> deadLettered.add(Reason.ENDPOINT_DISABLED), DispatchListener.NONE, clock,
        clock::nanos, 100_000, 100, pace), Map.of("std", 1.0), lookup);
    LaneRoute route = null;
    for (int i = 0; i < 30; i++) {
      route = paced.route(entry("a" + i, "acme"), hooks, config);
      assertInstanceOf(LaneRoute.Queue.class, route, "event " + i).lane()
          .offer(entry("a" + i, "acme"));
      timer.advance(Duration.ofMillis(100));
    }
    assertEquals(30, calledAt.size(), "3 s of timeouts, the endpoint still called");

    pace.late = false;
    for (int i = 0; i < 20; i++) {
      route = paced.route(entry("b" + i, "acme"), hooks, config);
      if (route instanceof LaneRoute.Queue q) {
        q.lane().offer(entry("b" + i, "acme"));
      }
      timer.advance(Duration.ofMillis(100));
    }
    assertEquals(new LaneRoute.Dead(Reason.ENDPOINT_DISABLED, "the endpoint of tenant acme "
        + "toward hooks is disabled (it kept failing; whileDisabled: dead_letter)"), route,
        "timeouts of its own for its disableAfter (1 s): disabled");
  }

  @Test
  void shouldCallTheEndpointTheRegistryGivesOverTheFilesAndTheFilesOnceItIsRemoved() {
    status = 200;
    registry.put("acme", record("http://127.0.0.1:9/registry"));
    registry.put("nobody", record("http://127.0.0.1:9/nobody"));

    queue("e1");
    endpoints.route(entry("e2", "nobody"), hooks, config);
    timer.advance(Duration.ofMillis(100));
    assertEquals(List.of(URI.create("http://127.0.0.1:9/registry")), calledAt,
        "the registry's endpoint, not the file's");

    registry.remove("acme");
    registry.remove("nobody");
    queue("e3");
    timer.advance(Duration.ofMillis(200));
    assertEquals(URI.create("http://127.0.0.1:9/acme"), calledAt.get(calledAt.size() - 1),
        "its record gone: the file's");
    assertInstanceOf(LaneRoute.Dead.class, endpoints.route(entry("e4", "nobody"), hooks,
        config), "no record and nothing in the file: no_endpoint");
  }

  @Test
  void shouldDeferTheEventOfATenantTheRegistryCouldNotBeReadForNeverDeadLetterItOrCallTheFiles() {
    unanswered.add("nobody");
    unanswered.add("acme");

    assertEquals(new LaneRoute.Full("the tenant registry did not answer for tenant nobody"),
        endpoints.route(entry("e1", "nobody"), hooks, config),
        "maybe its only endpoint is in the registry: not no_endpoint");
    assertInstanceOf(LaneRoute.Full.class, endpoints.route(entry("e2", "acme"), hooks,
        config), "maybe the registry replaced the file's endpoint: not the file's URL");
    assertEquals(0, endpoints.size(), "no lane opened");

    unanswered.clear();
    registry.put("acme", record("http://127.0.0.1:9/registry"));
    assertEquals("hooks/acme", queue("e3").name(), "answered: its endpoint");
  }

  @Test
  void shouldDeadLetterTheEventOfARegistryEndpointTheConfigurationNowRefusesNotCallTheFiles() {
    SluiceConfig narrowed = ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          hooks:
            endpoints: perTenant
            allowedHosts: [ "*.customers.example" ]
            rate: 10/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        tenants:
          acme: { endpoints: { hooks: "https://acme.customers.example/file" } }
        """, Map.of());
    registry.put("acme", record("https://hooks.elsewhere.example/in?sig=secret"));

    LaneRoute route = endpoints.route(entry("e1", "acme"), narrowed.providers()
        .get("hooks"), narrowed);

    assertEquals(new LaneRoute.Dead(Reason.NO_ENDPOINT, "the registry's endpoint of tenant "
        + "acme toward hooks fails the configuration's checks now (see the log; sluice tenants set"
        + " acme --endpoint hooks=URL, or --remove-endpoint hooks)"), route,
        "not the file's URL, which the registry's replaced");
    assertEquals(0, endpoints.size());
  }

  @Test
  void shouldSendTheNextEventToAChangedEndpointWhileTheOldLaneFinishesWhatItHolds() {
    status = 200;
    registry.put("acme", record("http://127.0.0.1:9/old"));
    ProviderLane old = queue("e0");
    for (int i = 1; i < 5; i++) {
      queue("e" + i);
    }
    timer.advance(Duration.ZERO);
    assertEquals(1, calledAt.size(), "10/s: one now, four queued behind it");

    registry.put("acme", record("http://127.0.0.1:9/new"));
    ProviderLane next = queue("e5");
    assertEquals(1, endpoints.retiring(), "the old lane still holds four");
    assertEquals("hooks/acme", next.name(), "the same endpoint's lane: its leak is shared");
    timer.advance(Duration.ofSeconds(1));

    long toOld = calledAt.stream().filter(URI.create("http://127.0.0.1:9/old")::equals).count();
    assertEquals(5, toOld, "what was queued toward the old endpoint went there");
    assertEquals(URI.create("http://127.0.0.1:9/new"), calledAt.get(calledAt.size() - 1),
        "the event after the change went to the new one");
    assertEquals(0, old.queued());
    endpoints.tick(clock.millis());
    assertEquals(0, endpoints.retiring(), "the old lane is closed once idle");
    assertEquals(List.of(next), endpoints.lanes());
  }

  @Test
  void shouldDeferTheEventsOfAChangedEndpointOnceTooManyOldLanesAreStillFinishing() {
    int n = TenantEndpoints.MAX_LANES;
    for (int i = 0; i < n; i++) {
      registry.put("t" + i, record("http://127.0.0.1:9/old"));
      for (int k = 0; k < 2; k++) {
        assertInstanceOf(LaneRoute.Queue.class, endpoints.route(entry("a" + i + k, "t" + i),
            hooks, config)).lane().offer(entry("a" + i + k, "t" + i));
      }
    }
    for (int i = 0; i < n; i++) {
      registry.put("t" + i, record("http://127.0.0.1:9/new"));
      assertInstanceOf(LaneRoute.Queue.class, endpoints.route(entry("b" + i, "t" + i), hooks,
          config)).lane().offer(entry("b" + i, "t" + i));
    }
    assertEquals(n, endpoints.retiring(), "every old lane still holds an event");

    registry.put("t0", record("http://127.0.0.1:9/newer"));
    assertInstanceOf(LaneRoute.Full.class, endpoints.route(entry("c", "t0"), hooks, config),
        "no more lanes finishing apart than live ones: deferred, no attempt spent");
  }

  private static TenantRecord record(String url) {
    return new TenantRecord("std", Map.of(), false,
        Map.of("hooks", new TenantEndpoint(URI.create(url))));
  }

  private ProviderLane queue(String id) {
    LaneRoute route = endpoints.route(entry(id, "acme"), hooks, config);
    ProviderLane lane = assertInstanceOf(LaneRoute.Queue.class, route, id).lane();
    lane.offer(entry(id, "acme"));
    return lane;
  }

  static DispatchEntry entry(String id, String tenant) {
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"hooks\"}";
    return new DispatchEntry(new TopicPartition("ready", 0), 0, 1, tenant.getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(), new WorkEvent(id, tenant, "hooks", 1, null,
        null, null, Map.of()), "std", 0, null);
  }
}
