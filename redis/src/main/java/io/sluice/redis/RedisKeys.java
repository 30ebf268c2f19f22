package io.sluice.redis;

/**
 * The Redis keys the {@code redis} module owns, the ones every role shares, built here and nowhere
 * else (as {@code Topics} names the Kafka topics); listed with the other modules' key classes in
 * {@code docs/architecture.md}, "Redis keys". {@code ArchitectureTest} fails on a key prefix written
 * anywhere else.
 *
 * <p>Not here yet: the tenant registry's hash, {@code sluice:v1:{tenants}} ({@code TenantRegistry.KEY}),
 * written out in {@code redis.tenants} while that package is being changed (allowed, with that
 * reason, by {@code ArchitectureTest}); it moves here next.
 */
final class RedisKeys {
  private RedisKeys() {}

  /** {@code sluice:v1:{tag}:marker}: the marker of the slot {@code tag} hashes to ({@link SlotMarkers}). */
  public static String marker(String tag) {
    return "sluice:v1:{" + tag + "}:marker";
  }
}
