package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A file of the bad-configuration corpus (schemas' test resources, see BadConfigCorpusTest) given
 * to the command line: exit code 2, the field named, no password shown, no stack trace.
 */
class BadConfigCliTest {
  /** Tests run in the module directory. */
  private static final Path CORPUS = Path.of("../schemas/src/test/resources/config-corpus/bad");

  @Test
  void shouldExitTwoNamingRedisUriWithoutItsPassword() {
    Path file = CORPUS.resolve("redis-uri-port.yaml");
    assertTrue(Files.exists(file), file.toAbsolutePath().toString());

    CliRun run = CliRun.of("run", "--config", file.toString());

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("redis.uri: "), run.output());
    assertTrue(run.err().contains("redis://***@127.0.0.1:99999"), run.output());
    assertFalse(run.output().contains("S3cret"), run.output());
    assertFalse(run.err().contains("\tat "), "a message, not a stack trace: " + run.output());
  }

  @Test
  void shouldExitTwoNamingAForwardedHeaderThatSluiceOwns() {
    CliRun run = CliRun.of("gate", "--config",
        CORPUS.resolve("forward-header-idempotency-key.yaml").toString());

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("providers.payments-api.forwardHeaders[0]: \"Idempotency-Key\""),
        run.output());
  }
}
