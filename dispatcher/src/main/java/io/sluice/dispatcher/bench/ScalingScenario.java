package io.sluice.dispatcher.bench;

import io.sluice.schemas.config.SluiceConfig;
import io.sluice.topology.limiter.AcquireRequest;
import io.sluice.topology.limiter.BucketKey;
import io.sluice.topology.limiter.BucketSpec;
import io.sluice.topology.limiter.LettuceTokenBucketStore;
import io.sluice.topology.limiter.TokenBucketScript;
import io.sluice.topology.redis.RedisConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Scenario 2: how the cost grows with the number of tenants and with partitions per stream
 * thread.
 *
 * <p>Tenants: the gate (2 stream threads, 4 partitions, every tenant within quota) over the same
 * number of pre-loaded events (50,000) spread round robin over 10 and 1,000 tenants. For 100,000
 * and 1,000,000 tenants, more than the events, a gate run that sent an event to each would take
 * minutes here, so their buckets are created first through {@code token_bucket.lua} itself (one
 * acquire each, the script's own writes, no other path), and the gate then runs over events of
 * tenants drawn at random from them: the memory figure is that of that many real buckets, and the
 * throughput that of a gate meeting a new tenant with almost every event. Memory: the growth of Redis's {@code used_memory}
 * over the tenants, and {@code MEMORY USAGE} of sample bucket keys.
 *
 * <p>Partitions: one stream thread with 1, 2 and 4 partitions (1,000 tenants within quota).
 */
final class ScalingScenario implements BenchScenario {
  private static final int SAMPLE_KEYS = 50;

  @Override
  public String name() {
    return "scaling";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "how cost grows with tenants and partitions");
    long events = ctx.size(50_000, 3_000);
    int[] tenantCounts = ctx.quick() ? new int[] {10, 5_000}
        : new int[] {10, 1_000, 100_000, 1_000_000};
    List<String> labels = new ArrayList<>();
    double[] perSecond = new double[tenantCounts.length];
    double[] bytesPerTenant = new double[tenantCounts.length];
    for (int i = 0; i < tenantCounts.length; i++) {
      int n = tenantCounts[i];
      String prefix = BenchContext.unique("s");
      long before = ctx.redis().usedMemory();
      // More tenants than events: every bucket is made first, so the gate meets n real buckets.
      boolean populate = n > events;
      double populateRate = Double.NaN;
      if (populate) {
        populateRate = populate(ctx, prefix, n);
      }
      Random random = new Random(7);
      GateThroughput.Result g = GateThroughput.gate(ctx,
          new BenchConfig().streamThreads(GateScenario.THREADS), GateScenario.PARTITIONS, events,
          populate ? e -> prefix + "-" + random.nextInt(n) : e -> prefix + "-" + (e % n));
      long created = populate ? n : Math.min(n, events);
      long after = ctx.redis().usedMemory();
      double perTenant = (after - before) / (double) created;
      double sampleBytes = sampleUsage(ctx, prefix, (int) created);
      perSecond[i] = g.eventsPerSecond();
      bytesPerTenant[i] = sampleBytes;
      labels.add(String.format(Locale.ROOT, "%,d", n));
      ctx.progress("scaling: %,d tenants: %,.0f events/s, %.0f bytes per tenant", n,
          g.eventsPerSecond(), perTenant);
      r.row(String.format(Locale.ROOT, "%,d tenants%s", n,
              populate ? " (buckets created through the script first)" : ""),
          "events/s", g.eventsPerSecond(), "Redis calls per event", g.redisCallsPerEvent(),
          "used_memory growth per tenant (bytes)", created < 1000 ? Double.NaN : perTenant,
          "MEMORY USAGE per bucket (bytes)", sampleBytes,
          "bucket creations/s through the script", populateRate);
    }
    int[] partitions = ctx.quick() ? new int[] {1} : new int[] {1, 2, 4};
    double[] byPartitions = new double[partitions.length];
    for (int i = 0; i < partitions.length; i++) {
      GateThroughput.Result g = GateThroughput.gate(ctx, new BenchConfig().streamThreads(1),
          partitions[i], events, GateScenario.roundRobin(1_000));
      byPartitions[i] = g.eventsPerSecond();
      ctx.progress("scaling: %d partitions on 1 stream thread: %,.0f events/s", partitions[i],
          g.eventsPerSecond());
      r.row(partitions[i] + " partition(s) per stream thread, 1,000 tenants",
          "events/s", g.eventsPerSecond(), "Redis calls per event", g.redisCallsPerEvent());
    }
    Map<String, double[]> series = new LinkedHashMap<>();
    series.put("gate events/s", perSecond);
    r.plot("scaling-tenants.svg", SvgLinePlot.of("Gate throughput against tenants",
        "tenants (each step ×100, one Redis, 2 cores)", "events/s", labels, series),
        "Gate events/s against the number of tenants");
    Map<String, double[]> memory = new LinkedHashMap<>();
    memory.put("bytes per bucket", bytesPerTenant);
    r.plot("scaling-memory.svg", SvgLinePlot.of("Redis memory per tenant bucket",
        "tenants", "bytes (MEMORY USAGE)", labels, memory), "Redis bytes per tenant bucket");
    int last = tenantCounts.length - 1;
    r.note(String.format(Locale.ROOT, "**events/s** falls from %,.0f at %,d tenants to %,.0f at "
            + "%,d: with few tenants a lease serves most events without a round trip (see "
            + "**Redis calls per event**); once tenants outnumber the events each one sends within "
            + "a lease's life, every event costs one blocking script call and the gate runs at the "
            + "speed of those round trips.", perSecond[0], tenantCounts[0], perSecond[last],
        tenantCounts[last]));
    r.note("**used_memory growth per tenant** is Redis's `used_memory` after the run minus "
        + "before, over the tenants created (left out below 1,000 tenants, where allocator noise "
        + "dominates); **MEMORY USAGE per bucket** is the mean of `MEMORY USAGE` over up to "
        + SAMPLE_KEYS + " bucket keys. A million tenants cost about "
        + String.format(Locale.ROOT, "%.0f MB", bytesPerTenant[last] * tenantCounts[last] / 1e6)
        + " by the latter measure.");
    r.note(String.format(Locale.ROOT, "**partitions per stream thread**: %s events/s at %s "
            + "partitions on one thread; a stream thread decides its events one at a time, so "
            + "more partitions on the same thread add no parallelism, only more tasks (and "
            + "transactions' worth of commits) per poll.",
        join(byPartitions), join(partitions)));
    return r;
  }

  /**
   * Creates {@code n} buckets through token_bucket.lua, each with one acquire of 1 unit, at most
   * 512 calls outstanding on one connection. Returns the calls per second.
   */
  private static double populate(BenchContext ctx, String prefix, int n) throws Exception {
    SluiceConfig config = new BenchConfig().load(ctx, BenchContext.unique("populate"));
    try (RedisConnection redis = RedisConnection.open(config.redis())) {
      LettuceTokenBucketStore store = new LettuceTokenBucketStore(redis.commands(),
          TokenBucketScript.load());
      BucketSpec spec = new BucketSpec(1_000_000, 1_000_000, 30_000_000L);
      Semaphore window = new Semaphore(512);
      long start = System.nanoTime();
      List<CompletableFuture<?>> tail = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        window.acquire();
        CompletableFuture<?> f = store.acquire(new BucketKey(BenchConfig.PROVIDER, prefix + "-" + i),
                spec, AcquireRequest.single(1)).toCompletableFuture()
            .whenComplete((a, e) -> window.release());
        if (i >= n - 512) {
          tail.add(f);
        }
      }
      CompletableFuture.allOf(tail.toArray(new CompletableFuture[0])).join();
      window.acquire(512);
      double rate = n / ((System.nanoTime() - start) / 1e9);
      ctx.progress("scaling: created %,d buckets through the script at %,.0f/s", n, rate);
      return rate;
    }
  }

  /** Mean MEMORY USAGE of up to SAMPLE_KEYS buckets of tenants {@code prefix-0 .. prefix-(n-1)}. */
  private static double sampleUsage(BenchContext ctx, String prefix, int n) {
    long total = 0;
    int found = 0;
    for (int i = 0; i < Math.min(n, SAMPLE_KEYS); i++) {
      int tenant = (int) ((long) i * n / Math.min(n, SAMPLE_KEYS));
      long bytes = ctx.redis().memoryUsage(
          new BucketKey(BenchConfig.PROVIDER, prefix + "-" + tenant).redisKey());
      if (bytes > 0) {
        total += bytes;
        found++;
      }
    }
    return found == 0 ? Double.NaN : total / (double) found;
  }

  private static String join(double[] values) {
    List<String> s = new ArrayList<>();
    for (double v : values) {
      s.add(String.format(Locale.ROOT, "%,.0f", v));
    }
    return String.join(" / ", s);
  }

  private static String join(int[] values) {
    List<String> s = new ArrayList<>();
    for (int v : values) {
      s.add(Integer.toString(v));
    }
    return String.join(" / ", s);
  }
}
