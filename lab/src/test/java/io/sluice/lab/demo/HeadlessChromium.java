package io.sluice.lab.demo;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Headless Chromium as a child process, one run per call, each with a fresh profile directory
 * (no state shared between runs, nothing written to the user's home). A run that does not end
 * within a minute is killed, and so is anything it started.
 */
final class HeadlessChromium {
  private static final Path BINARY = Path.of("/usr/bin/chromium");

  private final Path workDir;

  /** @param workDir where profiles and captured output go (a test's temp dir) */
  HeadlessChromium(Path workDir) {
    this.workDir = workDir;
  }

  /** Fails the test, saying how to install it, when Chromium is not there. */
  /**
   * Skips the calling test where Chromium is not installed, so that the test command works on a
   * machine with only a JDK and Maven; fails instead when {@code SLUICE_REQUIRE_CHROMIUM} is set
   * (CI sets it after installing Debian's chromium, so the report is always checked there).
   */
  static void requireInstalled() {
    if (Files.isExecutable(BINARY)) {
      return;
    }
    String why = BINARY + " is missing: the HTML report is checked in a real browser. Install it "
        + "with `sudo apt-get install -y chromium`.";
    if (System.getenv("SLUICE_REQUIRE_CHROMIUM") != null) {
      fail(why + " (SLUICE_REQUIRE_CHROMIUM is set)");
    }
    Assumptions.abort(why + " Skipped.");
  }

  /** The DOM after Chromium parsed and laid out the page, serialised as HTML. */
  String dumpDom(Path page) throws IOException, InterruptedException {
    Path out = workDir.resolve("dom-" + System.nanoTime() + ".html");
    run(out, "--dump-dom", page.toUri().toString());
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  /** A PNG of the page rendered in a window of the given size. */
  void screenshot(Path page, Path png, int width, int height)
      throws IOException, InterruptedException {
    Files.deleteIfExists(png);
    run(workDir.resolve("screenshot-" + System.nanoTime() + ".log"),
        "--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
        page.toUri().toString());
  }

  private void run(Path stdout, String... args) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(workDir, "chromium-profile-");
    List<String> command = new ArrayList<>(List.of(BINARY.toString(), "--headless",
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    Path stderr = workDir.resolve(stdout.getFileName() + ".err");
    Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile())
        .redirectError(stderr.toFile()).start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        fail("chromium did not finish within 60 s: " + command);
      }
      if (p.exitValue() != 0) {
        fail("chromium exited " + p.exitValue() + ": " + command + "\n"
            + Files.readString(stderr, StandardCharsets.UTF_8));
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
