package io.sluice.lab.bench;

import io.sluice.redis.RedisConnection;
import io.sluice.config.SluiceConfig;
import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.LettuceTokenBucketStore;
import io.sluice.gate.limiter.TokenBucketScript;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>Tenants (10, 1,000, 100,000, 1,000,000): first each tenant's bucket is created through
 * {@code token_bucket.lua} itself (the script's own writes, no other path), emptied so that its
 * TTL keeps it while measured, and Redis's memory is read: the growth of {@code used_memory} over
 * the tenants, and {@code MEMORY USAGE} of sample buckets. Then the gate (2 stream threads, 4
 * partitions, every tenant within quota) runs over 50,000 pre-loaded events of those tenants:
 * round robin when there are fewer tenants than events, else drawn at random (a new tenant with
 * almost every event). A gate run sending an event to each of a million tenants would take
 * minutes here, which is why the buckets are made by the script rather than by events. The
 * buckets are deleted afterwards.
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
    // -Dsluice.bench.scaling.events=N runs each tenants case over N events instead (to see
    // whether a short run's start-up, not the steady state, sets the figure).
    long events = Long.getLong("sluice.bench.scaling.events", ctx.size(50_000, 3_000));
    int[] tenantCounts = ctx.quick() ? new int[] {10, 5_000}
        : counts("sluice.bench.scaling.tenants", new int[] {10, 1_000, 100_000, 1_000_000});
    List<String> labels = new ArrayList<>();
    double[] perSecond = new double[tenantCounts.length];
    double[] bytesPerTenant = new double[tenantCounts.length];
    for (int i = 0; i < tenantCounts.length; i++) {
      int n = tenantCounts[i];
      String prefix = BenchContext.unique("s");
      long before = ctx.redis().usedMemory();
      double createRate = populate(ctx, prefix, n);
      double perTenant = (ctx.redis().usedMemory() - before) / (double) n;
      double sampleBytes = sampleUsage(ctx, prefix, n);
      Random random = new Random(7);
      GateThroughput.Result g = GateThroughput.gate(ctx,
          new BenchConfig().streamThreads(GateScenario.THREADS), GateScenario.PARTITIONS, events,
          n > events ? e -> prefix + "-" + random.nextInt(n) : e -> prefix + "-" + (e % n));
      unlink(ctx, prefix, n);
      perSecond[i] = g.eventsPerSecond();
      bytesPerTenant[i] = perTenant;
      labels.add(String.format(Locale.ROOT, "%,d", n));
      ctx.progress("scaling: %,d tenants: %,.0f events/s, %.0f bytes per tenant", n,
          g.eventsPerSecond(), perTenant);
      r.row(String.format(Locale.ROOT, "%,d tenants", n),
          "events/s", g.eventsPerSecond(), "Redis calls per event", g.redisCallsPerEvent(),
          "used_memory growth per tenant (bytes)", n < 1000 ? Double.NaN : perTenant,
          "MEMORY USAGE per bucket (bytes)", sampleBytes,
          "bucket creations/s through the script", createRate);
    }
    int[] partitions = ctx.quick() ? new int[] {1}
        : counts("sluice.bench.scaling.partitions", new int[] {1, 2, 4});
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
    memory.put("used_memory growth per tenant", bytesPerTenant);
    r.plot("scaling-memory.svg", SvgLinePlot.of("Redis memory per live tenant bucket",
        "tenants", "bytes per tenant", labels, memory), "Redis bytes per live tenant bucket");
    int last = tenantCounts.length - 1;
    r.note(String.format(Locale.ROOT, "**events/s** falls from %,.0f at %,d tenants to %,.0f at "
            + "%,d tenants (%,.0f at %,d): with few, busy tenants a lease serves "
            + "most events without a round trip (**Redis calls per event** near 0); a tenant too "
            + "quiet to earn a lease is decided by Redis, its event waiting in line with others "
            + "whose decisions go in one script call (up to 64 a call, a few calls in flight per "
            + "stream thread, docs/gate.md), so calls per event stay low, but each cold decision "
            + "still costs the script's work in redis-server and the stream thread waits for the "
            + "oldest call's answer before it emits in order. Past that point the rate is set by "
            + "those answers, not by how many buckets Redis holds.",
        perSecond[0], tenantCounts[0], perSecond[last], tenantCounts[last],
        perSecond[Math.max(0, last - 1)], tenantCounts[Math.max(0, last - 1)]));
    r.note(String.format(Locale.ROOT, "**used_memory growth per tenant** is Redis's "
            + "`used_memory` after creating the buckets minus before, over the tenants (left out "
            + "below 1,000, where allocator noise dominates); **MEMORY USAGE per bucket** is the "
            + "mean of `MEMORY USAGE` over up to %d bucket keys. The buckets were made through "
            + "token_bucket.lua itself, each emptied so that it stays while measured: %,d live "
            + "buckets took %.0f MB.", SAMPLE_KEYS, tenantCounts[last],
        bytesPerTenant[last] * tenantCounts[last] / 1e6));
    r.note("Only recently active tenants cost memory: the script gives a bucket a TTL of the time "
        + "until it is full again plus 1 s, so a tenant idle for longer than its bucket takes to "
        + "refill has no key at all; memory grows with the tenants active within a refill period, "
        + "not with every tenant ever seen.");
    r.note(String.format(Locale.ROOT, "**partitions per stream thread**: %s events/s at %s "
            + "partitions on one stream thread (1,000 tenants); a stream thread decides its "
            + "events one at a time, so more partitions on the same thread add no parallelism: "
            + "the gate scales by stream threads and instances, not by partitions per thread.",
        join(byPartitions), join(partitions)));
    return r;
  }

  /**
   * The cases a system property names (comma-separated, e.g. {@code
   * -Dsluice.bench.scaling.tenants=100000,1000000}; {@code none} for none), to profile one case
   * without the whole scenario; else all.
   */
  static int[] counts(String property, int[] all) {
    String named = System.getProperty(property);
    if (named == null || named.isBlank()) {
      return all;
    }
    if (named.equals("none")) {
      return new int[0];
    }
    return Arrays.stream(named.split(",")).mapToInt(v -> Integer.parseInt(v.trim())).toArray();
  }

  /**
   * Creates {@code n} buckets through token_bucket.lua, at most 512 calls outstanding on one
   * connection: each bucket (100 units refilled at 0.01/s) is emptied by one acquire of 100, so
   * the script gives it a TTL of about 10,000 s and it stays while measured. Returns the calls per
   * second.
   */
  private static double populate(BenchContext ctx, String prefix, int n) throws Exception {
    SluiceConfig config = new BenchConfig().load(ctx, BenchContext.unique("populate"));
    try (RedisConnection redis = RedisConnection.open(config.redis())) {
      LettuceTokenBucketStore store = new LettuceTokenBucketStore(redis.commands(),
          TokenBucketScript.load());
      BucketSpec spec = new BucketSpec(100, 0.01, 0);
      Semaphore window = new Semaphore(512);
      long start = System.nanoTime();
      List<CompletableFuture<?>> tail = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        window.acquire();
        CompletableFuture<?> f = store.acquire(new BucketKey(BenchConfig.PROVIDER, prefix + "-" + i),
                spec, AcquireRequest.single(100)).toCompletableFuture()
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

  /** Deletes the buckets {@code populate} made (they would stay for hours), 1,000 keys a call. */
  private static void unlink(BenchContext ctx, String prefix, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(new BucketKey(BenchConfig.PROVIDER, prefix + "-" + i).redisKey());
      if (keys.size() == 1000 || i == n - 1) {
        ctx.redis().commands().unlink(keys.toArray(String[]::new));
        keys.clear();
      }
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
