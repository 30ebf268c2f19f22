package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code sluice dlq list|replay --config FILE} reads the file as every other command does
 * ({@link ConfigOption}): its {@code logging:} block applies, and the option reads the same.
 */
class DlqConfigOptionTest {
  private static final String YAML = """
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers: { p: { url: "http://127.0.0.1:1/", rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } } }
      logging: { level: ERROR }
      """;

  @TempDir
  Path dir;

  private DlqCommand.Filters filters(String... args) {
    CommandLine.ParseResult parsed = new CommandLine(new DlqCommand()).parseArgs(args);
    Object sub = parsed.subcommand().commandSpec().userObject();
    return sub instanceof DlqCommand.ListDeadLetters l ? l.f : ((DlqCommand.ReplayDeadLetters) sub).f;
  }

  @Test
  void shouldApplyTheFilesLoggingBlockToListAndReplay() throws IOException {
    Path file = Files.writeString(dir.resolve("sluice.yaml"), YAML);
    Logger sluice = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("io.sluice");
    Level before = sluice.getLevel();
    try {
      for (String command : List.of("list", "replay")) {
        sluice.setLevel(Level.INFO);
        filters(command, "--config", file.toString()).config();
        assertEquals(Level.ERROR, sluice.getLevel(), command + " applies logging.level");
      }
    } finally {
      sluice.setLevel(before);
    }
  }

  @Test
  void shouldOfferTheSameConfigOptionAsTheOtherCommands() {
    CommandLine.Model.OptionSpec shared = CommandLine.Model.CommandSpec
        .forAnnotatedObject(new ConfigOption()).findOption("--config");
    for (String command : List.of("list", "replay")) {
      CommandLine.Model.OptionSpec dlq = new CommandLine(new DlqCommand()).getSubcommands()
          .get(command).getCommandSpec().findOption("--config");
      assertEquals(Arrays.asList(shared.names()), Arrays.asList(dlq.names()));
      assertEquals(Arrays.asList(shared.description()), Arrays.asList(dlq.description()));
      assertSame(ConfigOption.class, dlq.command().mixins().values().stream()
          .flatMap(m -> m.mixins().values().stream()).findFirst().orElseThrow()
          .userObject().getClass(), command + ": the shared mixin, within the filters'");
    }
  }
}
