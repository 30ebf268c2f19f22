package io.sluice.app.cli;

import io.sluice.app.SluiceApp;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sluice run}: every role in one process. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Run the gate, the relay and the dispatcher in this process.")
final class RunCommand implements Callable<Integer> {
  @Mixin
  ConfigOption config;

  @Override
  public Integer call() throws Exception {
    return RoleCommands.run(config, EnumSet.allOf(SluiceApp.Role.class), "all roles");
  }

}
