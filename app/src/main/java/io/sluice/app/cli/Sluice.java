package io.sluice.app.cli;

import io.sluice.app.Preflight;
import io.sluice.config.ConfigException;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar sluice.jar <command>}: the one entry point of the jar (and of the lab's jar,
 * which adds its commands through {@link LabCommands}). Errors a user can fix
 * (a bad config, a server that is not there) are printed as one message and an exit code, never
 * as a stack trace.
 *
 * <p>Exit codes: 0 success; 1 the command ran and found a problem (verify: events missing; demo:
 * events lost); 2 a bad command line or configuration; 3 a server is unreachable.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "sluice 0.1.0",
    description = "Throttling and leaky-bucket dispatcher on Kafka and Redis.",
    subcommands = {RunCommand.class, RoleCommands.GateCommand.class,
        DlqCommand.class,
        RoleCommands.RelayCommand.class, RoleCommands.DispatchCommand.class, TopicsCommand.class,
        ProduceCommand.class, VerifyCommand.class,
        PauseCommands.PauseCommand.class,
        PauseCommands.ResumeCommand.class,
        TenantCommands.TenantsCommand.class,
        StatusCommand.class,
        TraceCommand.class,
        SimulateCommand.class,
        CommandLine.HelpCommand.class})
public final class Sluice {
  public static final int FOUND_PROBLEM = 1;
  public static final int BAD_INPUT = 2;
  public static final int UNREACHABLE = 3;

  public static void main(String[] args) {
    JvmDefaults.apply(); // first: the common pool reads its settings once
    System.exit(execute(args));
  }

  /** Runs a command line and returns its exit code (tests call this). */
  public static int execute(String... args) {
    CommandLine cli = new CommandLine(new Sluice());
    for (LabCommands lab : ServiceLoader.load(LabCommands.class)) {
      lab.commands().forEach(cli::addSubcommand);
    }
    cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
      if (e instanceof ConfigException) {
        commandLine.getErr().println(e.getMessage());
        return BAD_INPUT;
      }
      if (e instanceof Preflight.Unreachable) {
        commandLine.getErr().println(e.getMessage());
        return UNREACHABLE;
      }
      throw e;
    });
    return cli.execute(args);
  }
}
