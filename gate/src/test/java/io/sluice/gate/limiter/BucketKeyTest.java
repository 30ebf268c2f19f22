package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BucketKeyTest {
  @Test
  void keysOfTheSameProviderAndTenantAreOneBucketHoweverTheirStringsWereMade() {
    BucketKey a = new BucketKey("api", "acme");
    BucketKey b = new BucketKey(new String("api"), new StringBuilder("ac").append("me").toString());
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
  }

  @Test
  void aDifferentProviderOrTenantIsAnotherBucket() {
    BucketKey a = new BucketKey("api", "acme");
    assertNotEquals(a, new BucketKey("api", "acmf"));
    assertNotEquals(a, new BucketKey("apj", "acme"));
    assertNotEquals(new BucketKey("ab", "c"), new BucketKey("a", "bc"), "no joining of the two names");
    assertNotEquals(a, (Object) "sluice:v1:{api:acme}:tb");
  }

  @Test
  void aKeyNeedsBothNames() {
    assertThrows(NullPointerException.class, () -> new BucketKey(null, "acme"));
    assertThrows(NullPointerException.class, () -> new BucketKey("api", null));
  }

  @Test
  void theRedisKeyIsVersionedAndHashTaggedOnTheBucket() {
    assertEquals("sluice:v1:{api:acme}:tb", new BucketKey("api", "acme").redisKey());
  }
}
