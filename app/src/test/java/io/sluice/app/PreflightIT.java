package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.cli.Sluice;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Preflight against a real broker that refuses: the cause named, and exit 2, not "start a broker". */
@ExtendWith(RealServers.class)
class PreflightIT {

  @Test
  @DisplayName("TLS against the broker's plaintext listener: the TLS message, exit 2")
  void tlsAgainstPlaintext(KafkaBroker kafka, @TempDir Path dir) throws Exception {
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(config, """
        kafka: { bootstrap: "%s", properties: { security.protocol: SSL } }
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers: { p: { url: "http://127.0.0.1:1/", rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } } }
        """.formatted(kafka.bootstrapServers()));

    CliRun run = CliRun.of("topics", "check", "--config", config.toString());

    assertEquals(Sluice.BAD_INPUT, run.exitCode(), run.output());
    assertTrue(run.err().contains("the TLS handshake failed"), run.output());
    assertTrue(run.err().contains("security.protocol"), run.output());
    assertFalse(run.err().contains("Start a broker"), run.output());
  }
}
