package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * An operator's ID is held to the event contract's rule before anything is read (as
 * {@code GET /admin/events/{id}} holds it): an id no event can have is refused at once, naming
 * the rule, and no configuration is even loaded (the file named here does not exist).
 */
class TraceCommandTest {
  private static int trace(String id, ByteArrayOutputStream err) {
    PrintStream before = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      return new CommandLine(new TraceCommand()).execute(id, "--config", "/nonexistent/sluice.yaml");
    } finally {
      System.setErr(before);
    }
  }

  @Test
  void shouldRefuseAnIdNoEventCanHaveBeforeReadingAnything() {
    for (String id : new String[] {"x".repeat(129), " padded", "tab\there"}) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertEquals(Sluice.BAD_INPUT, trace(id, err), id);
      assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("sluice trace: "), err::toString);
    }
  }
}
