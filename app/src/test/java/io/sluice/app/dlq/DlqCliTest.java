package io.sluice.app.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;

/**
 * The dlq commands refuse a bad filter with exit 2 and a sentence, before reading any config or
 * reaching any server (the config file named here does not exist).
 */
class DlqCliTest {
  private static final String NO_FILE = "/nonexistent/sluice.yaml";

  @Test
  void shouldRefuseBadFiltersWithExitTwoNamingEach() {
    CliRun run = CliRun.of("dlq", "list", "--config", NO_FILE, "--reason", "400",
        "--limit", "20000", "--since", "yesterday");

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("--reason: expected one of"), run.output());
    assertTrue(run.err().contains("--limit: expected 1 to 10000; got 20000"), run.output());
    assertTrue(run.err().contains("--since: expected a duration like 90s"), run.output());
  }

  @Test
  void shouldRefuseABadFilterToReplayAsToList() {
    CliRun run = CliRun.of("dlq", "replay", "--config", NO_FILE, "--tenant", "acme\u001b]0;x\u0007",
        "--dry-run");

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("--tenant: expected 1 to 128"), run.output());
    assertFalse(run.err().contains("\u001b"), "the operator's escape is not echoed raw");
  }

  @Test
  void shouldRefuseATimeoutOutOfBounds() {
    CliRun run = CliRun.of("dlq", "list", "--config", NO_FILE, "--timeout-seconds", "0");

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("--timeout-seconds: expected 1 to 3600"), run.output());
  }
}
