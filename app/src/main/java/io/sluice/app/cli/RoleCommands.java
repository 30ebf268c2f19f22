package io.sluice.app.cli;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.SluiceApp;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sluice gate|relay|dispatch}: one role each, to scale them separately. */
final class RoleCommands {
  private RoleCommands() {}

  /**
   * Starts {@code roles} from the file, and reloads what may change at run time (tenants, tiers,
   * quotas, provider limits) when the file changes or on SIGHUP.
   */
  static Integer run(ConfigOption file, EnumSet<SluiceApp.Role> roles, String what)
      throws Exception {
    SluiceConfig config = file.load();
    SluiceApp app = SluiceApp.start(config, roles, null, new MetricRegistry(),
        config.http().port());
    try {
      app.watchConfig(file.file, file::load);
    } catch (IOException | RuntimeException e) {
      app.close();
      throw e;
    }
    Lifecycle.runUntilStopped(app, what);
    return 0;
  }

  /** One role, started from the configuration and run until stopped. */
  abstract static class RoleCommand implements Callable<Integer> {
    private final SluiceApp.Role role;
    private final String what;

    @Mixin
    ConfigOption config;

    RoleCommand(SluiceApp.Role role, String what) {
      this.role = role;
      this.what = what;
    }

    @Override
    public Integer call() throws Exception {
      return run(config, EnumSet.of(role), what);
    }
  }

  @Command(name = "gate", mixinStandardHelpOptions = true,
      description = "Run the gate only (Kafka Streams; instances share gate.applicationId).")
  static final class GateCommand extends RoleCommand {
    GateCommand() {
      super(SluiceApp.Role.GATE, "the gate");
    }
  }

  @Command(name = "relay", mixinStandardHelpOptions = true,
      description = "Run the relay only (the delay ladder's waiting room).")
  static final class RelayCommand extends RoleCommand {
    RelayCommand() {
      super(SluiceApp.Role.RELAY, "the relay");
    }
  }

  @Command(name = "dispatch", mixinStandardHelpOptions = true,
      description = "Run the dispatcher only (calls providers at their leak rate).")
  static final class DispatchCommand extends RoleCommand {
    DispatchCommand() {
      super(SluiceApp.Role.DISPATCHER, "the dispatcher");
    }
  }
}
