package io.sluice.lab.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One OS process of a chaos run (a Sluice role or the broker), started from the jar or, in a test,
 * from the test's class path, with its output appended to its own log file. It can be SIGKILLed
 * ({@link Process#destroyForcibly()}) and started again with the same command line.
 */
final class ChildJvm {
  private final String name;
  private final List<String> command;
  private final Path log;
  private Process process;
  private boolean expectedDown;
  private int unexpectedExits;

  ChildJvm(String name, List<String> command, Path log) {
    this.name = name;
    this.command = List.copyOf(command);
    this.log = log;
  }

  /**
   * The command line running {@code mainClass} with {@code args}: from {@code jar} when there is
   * one, else from {@code classPath} (a test's).
   */
  static List<String> javaCommand(Launch launch, String heap, String mainClass,
      List<String> args) {
    List<String> c = new ArrayList<>(List.of(launch.java(), "-Xmx" + heap, "-Xss512k",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
        "-cp", launch.classPath(), mainClass));
    c.addAll(args);
    return c;
  }

  /**
   * {@code java -jar sluice.jar ARGS} when running from the jar (as a user runs a role), else the
   * jar's main class from the class path.
   */
  static List<String> sluiceCommand(Launch launch, String heap, List<String> args) {
    String cp = launch.classPath();
    if (cp.endsWith(".jar") && !cp.contains(File.pathSeparator)) {
      List<String> c = new ArrayList<>(List.of(launch.java(), "-Xmx" + heap, "-Xss512k",
          "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", cp));
      c.addAll(args);
      return c;
    }
    return javaCommand(launch, heap, "io.sluice.app.cli.Sluice", args);
  }

  /** How to start a JVM like this one: its java binary and the class path holding Sluice. */
  record Launch(String java, String classPath) {}

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  synchronized void start() {
    try {
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(Redirect.appendTo(log.toFile()))
          .redirectInput(Redirect.PIPE)
          .start();
      expectedDown = false;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name + ": " + command, e);
    }
  }

  /** SIGKILL, like a crash: no shutdown hook runs, nothing is committed or flushed. */
  synchronized void kill() {
    expectedDown = true;
    if (process != null) {
      process.destroyForcibly();
      waitFor(process, 30);
    }
  }

  /** SIGTERM, then SIGKILL if it has not stopped within {@code seconds}. */
  synchronized void stop(long seconds) {
    expectedDown = true;
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!waitFor(process, seconds)) {
        process.destroyForcibly();
        waitFor(process, 30);
      }
    }
  }

  /** SIGTERM to every one first, then {@link #stop(long)} each: they stop side by side. */
  static void stopAll(List<ChildJvm> children, long seconds) {
    for (ChildJvm c : children) {
      c.signalStop();
    }
    for (ChildJvm c : children) {
      c.stop(seconds);
    }
  }

  private synchronized void signalStop() {
    expectedDown = true;
    if (process != null && process.isAlive()) {
      process.destroy();
    }
  }

  /**
   * Starts the process again if it ended when it was not meant to (a role that found the broker
   * away at start exits with code 3); returns true if it did.
   */
  synchronized boolean reviveIfExited() {
    if (expectedDown || process == null || process.isAlive()) {
      return false;
    }
    unexpectedExits++;
    start();
    return true;
  }

  synchronized int unexpectedExits() {
    return unexpectedExits;
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  private static boolean waitFor(Process p, long seconds) {
    try {
      return p.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
