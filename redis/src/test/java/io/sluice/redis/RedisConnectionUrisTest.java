package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisURI;
import io.sluice.config.RedisUri;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What Lettuce is given for each form of redis.uri: before, a cluster URI kept only host and
 * port of each seed, dropping the password and TLS.
 */
class RedisConnectionUrisTest {
  @Test
  void shouldGiveEveryClusterSeedTheUserPasswordAndTls() {
    List<RedisURI> seeds = RedisConnection.lettuceUris(
        RedisUri.parse("rediss-cluster://sluice:pw%40x@10.0.0.1:7000,10.0.0.2:7001"));

    assertEquals(2, seeds.size());
    for (RedisURI seed : seeds) {
      assertTrue(seed.isSsl());
      assertTrue(seed.isVerifyPeer());
      assertEquals("sluice", seed.getCredentialsProvider().resolveCredentials().block()
          .getUsername());
      assertArrayEquals("pw@x".toCharArray(), seed.getCredentialsProvider().resolveCredentials()
          .block().getPassword());
    }
    assertEquals(7001, seeds.get(1).getPort());
  }

  @Test
  void shouldGiveAStandaloneServerThePasswordOfTheDefaultUserAndTheDatabase() {
    RedisURI uri = RedisConnection.lettuceUris(RedisUri.parse("redis://:s3cret@cache:6380/4"))
        .get(0);

    assertFalse(uri.isSsl());
    assertEquals("cache", uri.getHost());
    assertEquals(4, uri.getDatabase());
    assertNull(uri.getCredentialsProvider().resolveCredentials().block().getUsername());
    assertArrayEquals("s3cret".toCharArray(),
        uri.getCredentialsProvider().resolveCredentials().block().getPassword());
  }

  @Test
  void shouldSendNoCredentialsWhenTheUriHasNone() {
    RedisURI uri = RedisConnection.lettuceUris(RedisUri.parse("redis-cluster://a:1,b:2")).get(0);

    assertFalse(uri.getCredentialsProvider().resolveCredentials().block().hasPassword());
    assertFalse(uri.isSsl());
  }
}
