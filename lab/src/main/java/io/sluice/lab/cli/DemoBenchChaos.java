package io.sluice.lab.cli;

import io.sluice.app.cli.LabCommands;
import java.util.List;

/**
 * The lab's commands on the application's command line: {@code demo}, {@code bench} and
 * {@code chaos}. Listed in {@code META-INF/services/io.sluice.app.cli.LabCommands}, so that
 * {@code java -jar sluice-lab.jar} is {@code sluice} with these three commands more.
 */
public final class DemoBenchChaos implements LabCommands {
  @Override
  public List<Object> commands() {
    return List.of(new DemoCommand(), new BenchCommand(), new ChaosCommand());
  }
}
