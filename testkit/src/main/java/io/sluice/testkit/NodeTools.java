package io.sluice.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Node.js for the checks that run a reference outside the JVM (the Standard Webhooks library, the
 * OTLP receiver): a test without {@code node} and {@code npm} on the PATH is skipped, except
 * under {@code CI=true}, where {@code .ci/run} installs them and a skip would hide a failure.
 */
public final class NodeTools {
  private NodeTools() {}

  /** Fails under {@code CI=true}, else skips the test, unless {@code node} and {@code npm} run. */
  public static void require(String what) {
    boolean node = onPath("node") && onPath("npm");
    if (!node && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("node and npm are required under CI=true (.ci/run installs them)");
    }
    Assumptions.assumeTrue(node, "node/npm not on the PATH: " + what
        + " is skipped (install nodejs and npm to run it)");
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
