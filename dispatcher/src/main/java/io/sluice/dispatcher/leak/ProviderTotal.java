package io.sluice.dispatcher.leak;

/**
 * A per-tenant provider's {@code totalRate}: one line of slots across all of its endpoints,
 * claimed together with each endpoint's own leak.
 *
 * <h2>Two lines at once</h2>
 *
 * <p>Each call of an endpoint takes one slot of the endpoint's leak AND one slot of the
 * provider's total line, both at the same instant {@code t}, in one atomic step
 * ({@link LeakMath#claim(LeakState, LeakState, long, double, double, int, long)},
 * {@code lua/leaky_bucket.lua} given the total's key), with {@code t} at or after both lines' next
 * free slot. Each line's slots therefore stay at least its interval apart: the endpoint's
 * {@code 1/rate} and the total's {@code 1/totalRate}, whatever the interleaving of lanes and
 * instances, and the bound of {@link LeakMath} (at most {@code rate * T + 1} in any window T)
 * holds for each line on its own.
 *
 * <p>Why one step and not two: taking the endpoint's slot, then a total slot, lets the total
 * delay the calls by different amounts. An endpoint at 2/s given slots 0 and 0.5 s by its own
 * leak, whose calls the total then moves to 0.4 s and 0.5 s, receives two calls 0.1 s apart.
 *
 * <p>In a Redis Cluster the two keys must be in one slot, so the keys of every endpoint of a
 * provider with a total carry the provider's hash tag ({@code sluice:v1:{hooks}/acme:leak}
 * beside {@code sluice:v1:{hooks}:total}): all of that provider's endpoint leaks live on one
 * node, and their claims all run there. Without a total, each endpoint's keys keep their own tag
 * ({@code sluice:v1:{hooks/acme}:leak}) and spread over the cluster.
 *
 * @param provider       the provider's name: its total's key
 * @param ratePerSecond  {@code totalRate}, calls per second across every endpoint and instance
 */
public record ProviderTotal(String provider, double ratePerSecond) {
  public ProviderTotal {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("totalRate must be a positive number, not " + ratePerSecond);
    }
  }

  /**
   * The name an endpoint lane's keys go by when the provider has a total:
   * {@code {hooks}/acme} for the lane {@code hooks/acme}, so its keys share the total's cluster
   * slot ({@link RedisLeakyBucket#redisKey}).
   */
  public String laneKeyName(String laneName) {
    if (!laneName.startsWith(provider + "/")) {
      throw new IllegalArgumentException(laneName + " is not an endpoint lane of " + provider);
    }
    return "{" + provider + "}" + laneName.substring(provider.length());
  }
}
