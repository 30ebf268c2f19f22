package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the write token may not do to the log levels (issue 33). */
class LoggerLevelRefusalTest {
  @Test
  @DisplayName("TRACE or DEBUG on io.lettuce, io.netty, org.apache.kafka or ROOT is refused: their debug output may carry credentials")
  void librariesStayAtInfo() {
    for (String name : new String[] {"io.lettuce", "io.lettuce.core.protocol", "io.netty", "org.apache.kafka", "ROOT", "io.sluicex"}) {
      for (String level : new String[] {"TRACE", "debug", "ALL"}) {
        assertTrue(LoggerRoutes.refusal(name, level).isPresent(), name + " " + level);
      }
    }
  }

  @Test
  @DisplayName("Sluice's own loggers may go to TRACE; any logger to INFO or above, or back to inherit")
  void ownLoggersAndQuieterLevels() {
    assertEquals(Optional.empty(), LoggerRoutes.refusal("io.sluice.dispatcher", "TRACE"));
    assertEquals(Optional.empty(), LoggerRoutes.refusal("io.sluice", "DEBUG"));
    assertEquals(Optional.empty(), LoggerRoutes.refusal("io.lettuce", "WARN"));
    assertEquals(Optional.empty(), LoggerRoutes.refusal("io.lettuce", null));
  }
}
