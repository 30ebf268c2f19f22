package io.sluice.app.cli;

import java.util.List;

/**
 * Commands another jar adds to {@code sluice}: the lab's {@code demo}, {@code bench} and
 * {@code chaos}, found through {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.sluice.app.cli.LabCommands} file) when the lab is on the class path,
 * as in {@code lab/target/sluice-lab.jar}. The production jar has none, and the application never
 * names a class of the lab.
 */
public interface LabCommands {
  /** Picocli commands (objects of classes annotated with {@code @Command}), each added by its name. */
  List<Object> commands();
}
