package io.sluice.app;

import io.sluice.app.cli.Sluice;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One in-process run of the {@code sluice} command line, with what it printed. The commands
 * print to {@code System.out} and {@code System.err} (picocli's own writers wrap them), so the
 * run swaps both for the duration of the command; whatever is written is also passed on to the
 * original streams, so a failing test's log still shows it. Runs must not overlap (JUnit runs
 * test methods one at a time unless told otherwise).
 *
 * @param exitCode what {@link Sluice#execute} returned
 * @param out      standard output of the run
 * @param err      standard error of the run (including log lines printed while it ran)
 */
public record CliRun(int exitCode, String out, String err) {

  public static CliRun of(String... args) {
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(new Tee(out, originalOut), true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new Tee(err, originalErr), true, StandardCharsets.UTF_8));
      exit = Sluice.execute(args);
    } finally {
      System.out.flush();
      System.err.flush();
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    return new CliRun(exit, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }

  /** Both streams, for failure messages. */
  public String output() {
    return "--- stdout:\n" + out + "--- stderr:\n" + err;
  }

  /** Writes to a buffer and passes everything on. */
  private static final class Tee extends OutputStream {
    private final OutputStream buffer;
    private final OutputStream passOn;

    Tee(OutputStream buffer, OutputStream passOn) {
      this.buffer = buffer;
      this.passOn = passOn;
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      buffer.write(b);
      passOn.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      buffer.write(b, off, len);
      passOn.write(b, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      passOn.flush();
    }
  }
}
