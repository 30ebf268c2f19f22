package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.RedisConfig;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A role's access to a real redis-server: its connection answers, its circuit starts closed. */
@ExtendWith(RealServers.class)
class RedisAccessIT {

  @Test
  @DisplayName("an opened access pings and has a closed circuit of its own")
  void opensOneConnectionWithItsCircuit(RedisServerProcess server) throws Exception {
    try (RedisAccess gate = RedisAccess.open(new RedisConfig(server.uri()), "gate");
         RedisAccess dispatcher = RedisAccess.open(new RedisConfig(server.uri()), "dispatcher")) {
      assertEquals("PONG", gate.ping().toCompletableFuture().get(5, TimeUnit.SECONDS));
      assertEquals(RedisCircuit.State.CLOSED, gate.circuit().state());
      assertEquals("gate", gate.circuit().status().name(), "the circuit logs under the role's name");
      assertEquals("dispatcher", dispatcher.circuit().status().name());
      assertTrue(gate.circuit() != dispatcher.circuit(), "each role fails and recovers on its own");
    }
  }

  @Test
  @DisplayName("an access to a server that is not there fails at once, saying what to start")
  void failsNamingTheUri() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> RedisAccess.open(new RedisConfig("redis://127.0.0.1:1"), "gate"));
    assertTrue(e.getMessage().contains("does not answer"), e.getMessage());
  }
}
