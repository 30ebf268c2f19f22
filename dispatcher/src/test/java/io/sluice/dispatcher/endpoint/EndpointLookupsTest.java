package io.sluice.dispatcher.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One tenant's slow resolver cannot delay another tenant's call (issue 33). The suspicion was
 * that every endpoint's lookup queued on one pool of 4 threads with no deadline: the first test
 * proves it with two tenants' guards sharing one {@link EndpointLookups}, as every guard shares
 * the process's (it failed on the former shared 4-thread pool: tenant B's call waited behind
 * tenant A's four hanging lookups), the others hold the bounds.
 */
class EndpointLookupsTest {
  private static final InetAddress PUBLIC = address(93, 184, 216, 34);
  /** Released at the end: until then, tenant A's resolver never answers. */
  private final CountDownLatch hang = new CountDownLatch(1);
  private final AtomicInteger slowLookups = new AtomicInteger();
  private final GuardedEndpoint.Resolver resolver = host -> {
    if (host.endsWith("tenant-a.example")) {
      slowLookups.incrementAndGet();
      try {
        hang.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return List.of(PUBLIC);
  };
  private final Provider answers = call ->
      CompletableFuture.completedFuture(new ProviderResult.Answered(200, null));

  @AfterEach
  void release() {
    hang.countDown();
  }

  private static InetAddress address(int a, int b, int c, int d) {
    try {
      return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private static CompletableFuture<ProviderResult> call(GuardedEndpoint endpoint) {
    return endpoint.call(new ProviderCall("e-1", null, new byte[0], Map.of(), 1)).toCompletableFuture();
  }

  @Test
  @DisplayName("tenant A's resolver hangs on 4 calls: tenant B's call, through the same lookups, still answers within 500 ms")
  void hangingResolverDelaysNoOtherTenant() throws Exception {
    EndpointLookups shared = new EndpointLookups(resolver, EndpointLookups.TIMEOUT);
    GuardedEndpoint a = new GuardedEndpoint(answers, "hooks.tenant-a.example", shared);
    GuardedEndpoint b = new GuardedEndpoint(answers, "hooks.tenant-b.example", shared);
    List<CompletableFuture<ProviderResult>> aCalls = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      aCalls.add(call(a));
    }

    ProviderResult result = call(b).get(500, TimeUnit.MILLISECONDS);

    assertEquals(new ProviderResult.Answered(200, null), result);
    assertTrue(aCalls.stream().noneMatch(CompletableFuture::isDone), "A's calls still wait on A's resolver");
  }

  @Test
  @DisplayName("concurrent calls toward one hanging name share one lookup: it holds one thread, not one per call")
  void oneLookupPerHost() throws Exception {
    EndpointLookups lookups = new EndpointLookups(resolver, Duration.ofSeconds(5));
    List<CompletableFuture<List<InetAddress>>> waiting = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      waiting.add(lookups.resolve("hooks.tenant-a.example"));
    }
    assertEquals(List.of(PUBLIC), lookups.resolve("hooks.tenant-b.example").get(500, TimeUnit.MILLISECONDS));
    hang.countDown();
    for (CompletableFuture<List<InetAddress>> w : waiting) {
      assertEquals(List.of(PUBLIC), w.get(2, TimeUnit.SECONDS));
    }
    // Counted once every call has its answer: a lookup per call would each have run by now. (Read
    // before, the one shared lookup's thread might not have started yet on a loaded machine.)
    assertEquals(1, slowLookups.get());
  }

  @Test
  @DisplayName("a lookup not answered within its deadline fails the call as a connection error, at the deadline")
  void deadline() throws Exception {
    GuardedEndpoint a = new GuardedEndpoint(answers, "hooks.tenant-a.example",
        new EndpointLookups(resolver, Duration.ofMillis(300)));
    long start = System.nanoTime();

    ProviderResult result = call(a).get(2, TimeUnit.SECONDS);

    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertEquals(new ProviderResult.ConnectFailed("endpoint hooks.tenant-a.example could not be"
        + " resolved (no answer from the resolver within 300 ms)"), result);
    assertTrue(millis >= 290 && millis < 1000, "failed after " + millis + " ms");
  }

  @Test
  @DisplayName("past 64 hosts hanging at once, a 65th host's lookup is refused at once, not queued")
  void capOnHostsLookedUpAtOnce() throws Exception {
    EndpointLookups lookups = new EndpointLookups(resolver, Duration.ofSeconds(5));
    for (int i = 0; i < EndpointLookups.MAX_THREADS; i++) {
      lookups.resolve("h" + i + ".tenant-a.example");
    }
    ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> lookups.resolve("h-last.tenant-a.example").get(500, TimeUnit.MILLISECONDS));
    assertInstanceOf(EndpointLookups.NoAnswer.class, refused.getCause());
  }
}
