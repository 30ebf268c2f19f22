package io.sluice.schemas.config;

/**
 * @param uri {@code redis://host:port} or {@code redis-cluster://h1:p1,h2:p2,...}
 */
public record RedisConfig(String uri) {
  public boolean isCluster() {
    return uri.startsWith("redis-cluster://");
  }
}
