package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a secret comes from, and when a file secret is read again. */
class SecretTest {
  private final AtomicLong nanos = new AtomicLong(1_000);

  @Test
  void shouldReadAnEnvironmentVariableAndShowOnlyTheMask() {
    Secret s = Secret.resolve("${env:TOKEN}", Map.of("TOKEN", "abc123"), nanos::get);

    assertEquals("abc123", s.value());
    assertEquals("***", s.toString());
    assertEquals("${env:TOKEN}", s.reference());
  }

  @Test
  void shouldKeepALiteralAsWrittenAndRefuseAHalfReference() {
    assertEquals("plain", Secret.resolve("plain", Map.of()).value());
    assertEquals("(literal)", Secret.resolve("plain", Map.of()).reference());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Secret.resolve("${env:TOKEN", Map.of()));
    assertTrue(e.getMessage().startsWith("expected ${env:NAME}, ${file:PATH}"), e.getMessage());
  }

  @Test
  void shouldReadARotatedFileOnlyOnceTheRecheckIntervalHasPassed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "first\n");
    Secret s = Secret.resolve("${file:" + file + "}", Map.of(), nanos::get);
    assertEquals("first", s.value());

    Files.writeString(file, "second");
    nanos.addAndGet(Secret.RECHECK.toNanos() - 1);
    assertEquals("first", s.value(), "not read again before the interval");
    nanos.addAndGet(1);
    assertEquals("second", s.value(), "read again once it has passed");
  }

  @Test
  void shouldKeepTheLastValueWhileTheFileIsGoneOrEmpty(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "kept");
    Secret s = Secret.resolve("${file:" + file + "}", Map.of(), nanos::get);

    Files.delete(file);
    nanos.addAndGet(Secret.RECHECK.toNanos());
    assertEquals("kept", s.value());
    Files.writeString(file, "");
    nanos.addAndGet(Secret.RECHECK.toNanos());
    assertEquals("kept", s.value());
    Files.writeString(file, "new");
    nanos.addAndGet(Secret.RECHECK.toNanos());
    assertEquals("new", s.value());
  }

  @Test
  @DisplayName("a file deleted, found missing at two reads a recheck apart, revokes the secret until it is back")
  void deletedFileRevokesTheSecret(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "kept");
    Secret s = Secret.resolve("${file:" + file + "}", Map.of(), nanos::get);
    Files.delete(file);
    nanos.addAndGet(Secret.RECHECK.toNanos());
    assertEquals("kept", s.value(), "missing once: perhaps mid-replacement");
    nanos.addAndGet(Secret.RECHECK.toNanos());
    Secret.Unavailable revoked = assertThrows(Secret.Unavailable.class, s::value);
    assertEquals("${file:" + file + "} was deleted: the secret is revoked until the file is back",
        revoked.getMessage());
    Files.writeString(file, "new");
    nanos.addAndGet(Secret.RECHECK.toNanos());
    assertEquals("new", s.value());
  }

  @Test
  void shouldRefuseAFileTooLargeToBeASecret(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("big");
    Files.write(file, new byte[Secret.MAX_FILE_BYTES + 1]);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Secret.resolve("${file:" + file + "}", Map.of()));
    assertTrue(e.getMessage().contains("larger than 65536 bytes"), e.getMessage());
  }
}
