package io.sluice.embedded;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the {@code redis-server} to run: the {@value #SERVER_SETTING} setting (see
 * {@link Settings}) if given, else the one on the PATH, else the static one that Maven brings
 * ({@link BundledRedisServer}), so a machine with only a JDK and Maven runs the demo and the
 * tests. {@value #SERVER_SETTING}{@code =}{@value #BUNDLED} asks for the bundled one even where
 * Redis is installed, to check that path on any machine.
 *
 * <p>Only {@code redis-server} is needed: the cluster fixture forms its cluster with plain
 * commands ({@link RedisClusterProcess}), not {@code redis-cli}. The bundled binary is built with
 * TLS, so a test that runs a server with options {@link RedisServerProcess} does not offer (a
 * TLS-only port) runs {@link #server()} itself.
 */
public final class RedisBinaries {

    private static final Logger log = LoggerFactory.getLogger(RedisBinaries.class);

    static final String SERVER_SETTING = "SLUICE_REDIS_SERVER";
    /** The value of {@value #SERVER_SETTING} that selects the bundled binary. */
    static final String BUNDLED = "bundled";

    private RedisBinaries() {
    }

    /**
     * The {@code redis-server} to run, as described above.
     *
     * @throws IllegalStateException if the setting names no executable, or nothing is on the PATH
     *     and this platform has no bundled binary (the message says how to install Redis)
     */
    public static Path server() {
        Optional<String> configured = Settings.get(SERVER_SETTING);
        if (configured.isPresent()) {
            if (configured.get().equalsIgnoreCase(BUNDLED)) {
                return BundledRedisServer.extracted();
            }
            Path path = Path.of(configured.get());
            if (!isExecutable(path)) {
                throw new IllegalStateException(SERVER_SETTING + "=" + configured.get()
                        + " is not an executable file. Point it at redis-server, set it to " + BUNDLED
                        + " for the one Maven brings, or unset it to use the one on the PATH.");
            }
            return path;
        }
        Optional<Path> installed = onPath("redis-server");
        if (installed.isPresent()) {
            return installed.get();
        }
        Path bundled = BundledRedisServer.extracted();
        log.info("No redis-server on the PATH: using {}", bundled);
        return bundled;
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
