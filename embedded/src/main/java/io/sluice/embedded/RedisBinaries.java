package io.sluice.embedded;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the {@code redis-server} and {@code redis-cli} executables. Each can be overridden with a
 * setting (see {@link Settings}) for machines where Redis is installed outside the PATH, and a
 * missing binary is reported with the command that installs it, because the usual reader of that
 * message is a developer running the tests for the first time.
 */
final class RedisBinaries {

    static final String SERVER_SETTING = "SLUICE_REDIS_SERVER";
    static final String CLI_SETTING = "SLUICE_REDIS_CLI";

    private static final String INSTALL_HINT = "Install it: sudo apt-get install -y redis-server (Debian/Ubuntu)"
            + " or brew install redis (macOS), or point " + SERVER_SETTING + " (system property or environment"
            + " variable) at the executable.";

    private RedisBinaries() {
    }

    /** The {@code redis-server} to run: the {@value #SERVER_SETTING} setting, else the one on the PATH. */
    static Path server() {
        Optional<String> configured = Settings.get(SERVER_SETTING);
        if (configured.isPresent()) {
            Path path = Path.of(configured.get());
            if (!isExecutable(path)) {
                throw new IllegalStateException("redis-server is not installed or not on PATH: " + SERVER_SETTING
                        + "=" + configured.get() + " is not an executable file. " + INSTALL_HINT);
            }
            return path;
        }
        return onPath("redis-server").orElseThrow(() -> new IllegalStateException(
                "redis-server is not installed or not on PATH. " + INSTALL_HINT));
    }

    /**
     * The {@code redis-cli} to run: the {@value #CLI_SETTING} setting, else the one next to
     * {@code redisServer} (same installation, same version), else the one on the PATH.
     */
    static Path cli(Path redisServer) {
        Optional<String> configured = Settings.get(CLI_SETTING);
        if (configured.isPresent()) {
            Path path = Path.of(configured.get());
            if (!isExecutable(path)) {
                throw new IllegalStateException(CLI_SETTING + "=" + configured.get() + " is not an executable file.");
            }
            return path;
        }
        Path sibling = redisServer.resolveSibling("redis-cli");
        if (redisServer.getParent() != null && isExecutable(sibling)) {
            return sibling;
        }
        return onPath("redis-cli").orElseThrow(() -> new IllegalStateException(
                "redis-cli is not installed or not on PATH; it is needed to create a Redis Cluster. "
                        + "It comes with the redis-server package (apt-get install redis-server, brew install redis),"
                        + " or point " + CLI_SETTING + " at the executable."));
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static boolean isExecutable(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }
}
