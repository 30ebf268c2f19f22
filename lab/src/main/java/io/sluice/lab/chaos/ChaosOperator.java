package io.sluice.lab.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The operator's part of a chaos run (issue 39): {@link ChaosScenario#PAUSED_TENANT} paused on
 * every provider through {@code sluice pause tenant} from {@link ChaosScenario#PAUSE_FROM} of the
 * load, resumed at {@link ChaosScenario#PAUSE_TO}, each command tried again each second until it
 * succeeds (the broker or Redis may be away at that moment). The pause counts from the pause
 * command's return to the resume command's start; the commands' output goes to
 * {@code operator.log}.
 */
final class ChaosOperator implements Runnable {
  private final ChildJvm.Launch launch;
  private final Path configFile;
  private final Path log;
  private final PrintStream out;
  private final long loadStart;
  private final long loadMillis;
  private volatile long pausedFrom = -1;
  private volatile long pausedTo = -1;

  ChaosOperator(ChildJvm.Launch launch, Path configFile, Path log, PrintStream out,
      long loadStart, long loadMillis) {
    this.launch = launch;
    this.configFile = configFile;
    this.log = log;
    this.out = out;
    this.loadStart = loadStart;
    this.loadMillis = loadMillis;
  }

  /** When the pause was in force from; -1 if it never was. */
  long pausedFrom() {
    return pausedFrom;
  }

  /** When the resume began; -1 if it has not. */
  long pausedTo() {
    return pausedTo;
  }

  @Override
  public void run() {
    try {
      sleepUntil(loadStart + (long) (ChaosScenario.PAUSE_FROM * loadMillis));
      long until = loadStart + (long) (ChaosScenario.PAUSE_TO * loadMillis);
      if (command(until, "pause", "tenant", ChaosScenario.PAUSED_TENANT, "--reason", "chaos")) {
        pausedFrom = System.currentTimeMillis();
        out.printf("chaos: %4d s  paused tenant %s%n", (pausedFrom - loadStart) / 1000,
            ChaosScenario.PAUSED_TENANT);
      }
      sleepUntil(until);
      pausedTo = System.currentTimeMillis();
      command(pausedTo + 60_000, "resume", "tenant", ChaosScenario.PAUSED_TENANT);
      out.printf("chaos: %4d s  resumed tenant %s%n", (System.currentTimeMillis() - loadStart)
          / 1000, ChaosScenario.PAUSED_TENANT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs {@code sluice ARGS --config FILE} until it exits 0 or {@code deadline} passes. */
  private boolean command(long deadline, String... args) throws InterruptedException {
    List<String> command = new ArrayList<>(List.of(args));
    command.addAll(List.of("--config", configFile.toString()));
    while (System.currentTimeMillis() < deadline) {
      try {
        Process p = new ProcessBuilder(ChildJvm.sluiceCommand(launch, "256m", command))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
        if (!p.waitFor(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
        } else if (p.exitValue() == 0) {
          return true;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Thread.sleep(1_000); // tried again each second while the broker or Redis is away
    }
    return false;
  }

  private static void sleepUntil(long epochMillis) throws InterruptedException {
    long wait = epochMillis - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait); // the operator's schedule
    }
  }
}
