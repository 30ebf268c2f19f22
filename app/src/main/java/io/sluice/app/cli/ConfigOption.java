package io.sluice.app.cli;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config FILE} option every server command shares, with SLUICE_* overrides. */
final class ConfigOption {
  @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE",
      description = "The YAML configuration (see the README); SLUICE_A__B environment variables "
          + "override its fields.")
  Path file;

  SluiceConfig load() {
    return ConfigLoader.load(file, System.getenv());
  }
}
