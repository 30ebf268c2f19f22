package io.sluice.app.ops;

import io.sluice.config.KafkaConfig;
import io.sluice.config.Secrets;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;

/**
 * Is the Kafka cluster answering? Asks for the cluster's brokers ({@code describeCluster}) with
 * one long-lived {@link Admin} client, giving up after {@link #DEFAULT_TIMEOUT}, and reuses the
 * answer for {@link #DEFAULT_CACHE} (see {@link CachedResult}).
 *
 * <p>Why describeCluster: it needs a broker to answer a metadata request, and nothing more; no
 * topic, group or ACL has to exist. An answer with no broker at all counts as unreachable.
 */
public final class KafkaReachability implements HealthCheck, AutoCloseable {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_CACHE = Duration.ofSeconds(1);

  private final Admin admin;
  private final Duration timeout;
  private final CachedResult<HealthCheck.Result> cached;

  private KafkaReachability(Admin admin, Duration timeout, Duration cacheFor, LongSupplier nanoClock) {
    this.admin = admin;
    this.timeout = timeout;
    this.cached = new CachedResult<>(cacheFor, nanoClock, this::probe);
  }

  /** A check of {@code bootstrap} with a 2 s timeout and a 1 s cache. Does not connect yet. */
  public static KafkaReachability of(String bootstrap) {
    return of(new KafkaConfig(bootstrap, ""));
  }

  /** A check of the configured cluster, with its client properties (TLS, SASL). */
  public static KafkaReachability of(KafkaConfig kafka) {
    return of(kafka, DEFAULT_TIMEOUT, DEFAULT_CACHE);
  }

  public static KafkaReachability of(String bootstrap, Duration timeout, Duration cacheFor) {
    return of(new KafkaConfig(bootstrap, ""), timeout, cacheFor);
  }

  public static KafkaReachability of(KafkaConfig kafka, Duration timeout, Duration cacheFor) {
    Map<String, Object> props = kafka.clientProperties(Map.of(
        AdminClientConfig.CLIENT_ID_CONFIG, "sluice-health",
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
        // After the broker comes back, notice within a second rather than after the default
        // 1 s..10 s.
        AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000));
    return new KafkaReachability(Admin.create(props), timeout, cacheFor, System::nanoTime);
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public Result check() {
    return cached.get();
  }

  private Result probe() {
    DescribeClusterResult cluster = admin.describeCluster(
        new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()));
    try {
      // The admin call gives up on its own after the timeout; the extra half second only stops
      // this thread waiting forever if it did not.
      long waitMillis = timeout.toMillis() + 500;
      Collection<Node> nodes = cluster.nodes().get(waitMillis, TimeUnit.MILLISECONDS);
      String clusterId = cluster.clusterId().get(waitMillis, TimeUnit.MILLISECONDS);
      if (nodes.isEmpty()) {
        return Result.unreachable("cluster " + clusterId + " reports no broker");
      }
      return Result.reachable(nodes.size() + " broker(s), cluster id " + clusterId);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      // A SASL or TLS failure names the mechanism, never the secret; masked all the same.
      return Result.unreachable(
          Secrets.scrubLikely(cause.getClass().getSimpleName() + ": " + cause.getMessage()));
    } catch (TimeoutException e) {
      return Result.unreachable("no answer to describeCluster within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Result.unreachable("interrupted while asking Kafka");
    }
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(1));
  }
}
