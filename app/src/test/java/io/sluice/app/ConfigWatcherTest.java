package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.LiveConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

// SIGHUP is the process's: a test running beside this one that starts a ConfigWatcher (a role)
// takes the handler, and the signal this test sends reaches the other watcher.
@Isolated
class ConfigWatcherTest {
  private static final String FILE = """
      tiers:
        free: { weight: 1 }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          quotas:
            free: { capacity: 10, refill: 2/s }
      """;

  @TempDir
  Path dir;
  private Path file;
  private LiveConfig live;
  private final BlockingQueue<LiveConfig.Outcome> outcomes = new LinkedBlockingQueue<>();
  private ConfigWatcher watcher;

  @BeforeEach
  void start() throws Exception {
    file = dir.resolve("sluice.yaml");
    Files.writeString(file, FILE);
    live = new LiveConfig(ConfigLoader.load(file, Map.of()));
    watcher = new ConfigWatcher(file, live, () -> ConfigLoader.load(file, Map.of()), outcomes::add)
        .start();
  }

  @AfterEach
  void stop() throws Exception {
    watcher.close();
  }

  private LiveConfig.Outcome nextOutcome() throws InterruptedException {
    LiveConfig.Outcome outcome = outcomes.poll(20, TimeUnit.SECONDS);
    assertNotNull(outcome, "no reload within 20 s");
    return outcome;
  }

  /** As editors save: a new file renamed over the old one. */
  private void save(String text) throws Exception {
    Path temp = dir.resolve(".sluice.yaml.swp");
    Files.writeString(temp, text);
    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void aSavedChangeIsReloadedWithoutARestart() throws Exception {
    save(FILE.replace("rate: 50/s", "rate: 20/s"));

    assertEquals(new LiveConfig.Outcome.Applied(List.of("providers.payments-api")), nextOutcome());
    assertEquals(20, live.get().providers().get("payments-api").rate().perSecond());
  }

  @Test
  void aSavedLoggingLevelIsAppliedWithoutARestart() throws Exception {
    org.slf4j.Logger sluice = org.slf4j.LoggerFactory.getLogger("io.sluice.app.watched");
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger)
        org.slf4j.LoggerFactory.getLogger("io.sluice");
    ch.qos.logback.classic.Level before = root.getLevel();
    try {
      save(FILE + "logging: { level: DEBUG }\n");

      assertEquals(new LiveConfig.Outcome.Applied(List.of("logging")), nextOutcome());
      assertTrue(sluice.isDebugEnabled(), "io.sluice at DEBUG");
    } finally {
      root.setLevel(before);
    }
  }

  @Test
  void aBrokenSaveKeepsTheRunningConfigurationAndSaysWhichField() throws Exception {
    save(FILE.replace("capacity: 10", "capacity: -3"));

    LiveConfig.Outcome.Rejected rejected =
        assertInstanceOf(LiveConfig.Outcome.Rejected.class, nextOutcome());
    assertTrue(rejected.reason().contains("providers.payments-api.quotas.free.capacity"),
        rejected.reason());
    assertEquals(10, live.get().providers().get("payments-api").quotas().get("free").capacity());

    save(FILE.replace("capacity: 10", "capacity: 12"));
    assertEquals(new LiveConfig.Outcome.Applied(List.of("providers.payments-api")), nextOutcome(),
        "a fixed file is taken after a broken one");
  }

  @Test
  void sighupRereadsTheFileAndDoesNotStopTheProcess() throws Exception {
    // A JVM started with SIGHUP ignored (under nohup) keeps it ignored: nothing to test there.
    assumeTrue(watcher.reloadsOnSighup(), "SIGHUP is ignored in this JVM (started under nohup)");
    Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid()))
        .inheritIO().start();
    assertEquals(0, kill.waitFor());

    assertEquals(new LiveConfig.Outcome.Unchanged(), nextOutcome(),
        "the file is re-read on the signal even though it did not change");
  }
}
