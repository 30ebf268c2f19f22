package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisConnectionHandshakeTest {
  @Test
  @DisplayName("a handshake Lettuce lost (the AUTH answer never reached it) is told apart, at any depth of causes")
  void tellsALostHandshake() {
    RuntimeException lost = new RedisConnectionException("Unable to connect to 127.0.0.1:6379",
        new IllegalStateException("RedisHandshakeHandler not registered"));
    assertTrue(RedisConnection.lostHandshake(lost));
  }

  @Test
  @DisplayName("a refused password or a server that is not there is not a lost handshake: no second attempt")
  void otherFailuresAreNot() {
    assertFalse(RedisConnection.lostHandshake(new RedisConnectionException("Unable to connect",
        new IllegalStateException("WRONGPASS invalid username-password pair"))));
    assertFalse(RedisConnection.lostHandshake(new RedisConnectionException("Unable to connect",
        new java.net.ConnectException("Connection refused"))));
    assertFalse(RedisConnection.lostHandshake(new IllegalStateException((String) null)));
  }
}
