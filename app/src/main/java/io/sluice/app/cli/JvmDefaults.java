package io.sluice.app.cli;

import java.util.Properties;

/**
 * JVM settings the jar chooses for itself before anything else runs ({@link Sluice#main}), each
 * only when the operator did not set it ({@code -D...} on the command line wins).
 *
 * <h2>The common pool, at least 2 threads</h2>
 *
 * The JDK's HTTP client hands every answer of {@code sendAsync} to {@code CompletableFuture}'s
 * default executor before the caller's code sees it. That executor is the common
 * {@code ForkJoinPool} only when the pool has at least 2 threads; on a machine (or a container)
 * with 2 processors or fewer the pool's default is 1, and {@code CompletableFuture} then starts a
 * new thread for each task instead. Every provider call then cost a thread started and ended
 * (the {@code Thread-N} threads of a profile): 130,000 threads for 125,000 calls in a
 * 1,000-endpoint run on 2 cores, a quarter of the JVM's CPU spent in the kernel. With the pool at 2
 * threads the answers are taken by its two workers ({@code ForkJoinPool.commonPool-worker-N}).
 * The property is read once, when the pool is first used, so it is set here, first.
 */
final class JvmDefaults {
  /** The JDK's property for the common pool's threads. */
  static final String COMMON_POOL_PARALLELISM =
      "java.util.concurrent.ForkJoinPool.common.parallelism";
  /** The fewest common-pool threads with which {@code CompletableFuture} uses the pool. */
  static final int COMMON_POOL_THREADS = 2;

  private JvmDefaults() {}

  /** Applies the defaults to this JVM's system properties. */
  static void apply() {
    apply(System.getProperties(), Runtime.getRuntime().availableProcessors());
  }

  /**
   * Sets the common pool's threads to {@value #COMMON_POOL_THREADS} where the JDK would give it
   * fewer ({@code processors - 1}), unless {@code properties} already name a number.
   */
  static void apply(Properties properties, int processors) {
    if (properties.getProperty(COMMON_POOL_PARALLELISM) == null
        && processors - 1 < COMMON_POOL_THREADS) {
      properties.setProperty(COMMON_POOL_PARALLELISM, Integer.toString(COMMON_POOL_THREADS));
    }
  }
}
