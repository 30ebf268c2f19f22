package io.sluice.app.cli;

import io.sluice.app.logging.Logging;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --config FILE} option every command that reads the file shares (a picocli
 * {@code @Mixin}), with SLUICE_* overrides and the file's {@code logging:} settings applied.
 */
public final class ConfigOption {
  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
      description = "The YAML configuration (see the README); SLUICE_A__B environment variables "
          + "override its fields.")
  Path file;

  /** Loads the file and applies its {@code logging:} settings. */
  public SluiceConfig load() {
    SluiceConfig config = ConfigLoader.load(file, System.getenv());
    Logging.apply(config.logging());
    return config;
  }

  /**
   * Loads the file for a command that never calls a provider: providers' credentials that
   * cannot be read are left unread ({@link ConfigLoader#loadForOperator}).
   */
  public SluiceConfig loadForOperator() {
    SluiceConfig config = ConfigLoader.loadForOperator(file, System.getenv());
    Logging.apply(config.logging());
    return config;
  }
}
