package io.sluice.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The static {@code redis-server} that the {@code org.signal:embedded-redis} artifact carries as a
 * class-path resource, one per platform, copied to a temporary file so it can be run as a child
 * process like an installed one. Only the binaries of that artifact are used, not its Java API:
 * {@link RedisServerProcess} already runs, watches and stops the server.
 *
 * <p>The copy is made once per JVM and deleted when the JVM exits ({@link ChildProcesses}).
 */
final class BundledRedisServer {

    /** The Redis version inside {@code embedded-redis} 0.9.1; its resources are named after it. */
    static final String VERSION = "7.0.15";

    private static final String INSTALL_HINT = "Install Redis (sudo apt-get install -y redis-server, or brew"
            + " install redis) or point " + RedisBinaries.SERVER_SETTING + " at a redis-server executable.";

    private static Path extracted;

    private BundledRedisServer() {
    }

    /**
     * The class-path resource holding the binary for {@code osName} / {@code osArch} (the values
     * of the {@code os.name} and {@code os.arch} system properties), if the artifact has one.
     */
    static Optional<String> resourceFor(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String system = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "darwin" : null;
        String arch;
        switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64":
            case "x86_64":
                arch = "amd64";
                break;
            case "aarch64":
            case "arm64":
                arch = "arm64";
                break;
            case "x86":
            case "i386":
            case "i686":
                arch = "linux".equals(system) ? "386" : null;
                break;
            default:
                arch = null;
        }
        return system == null || arch == null ? Optional.empty()
                : Optional.of("redis-server-" + VERSION + "-" + system + "-" + arch);
    }

    /**
     * The executable copy for this platform, made on the first call.
     *
     * @throws IllegalStateException if there is no binary for this platform or the artifact is
     *     not on the class path
     */
    static synchronized Path extracted() {
        if (extracted != null && Files.isExecutable(extracted)) {
            return extracted;
        }
        String osName = System.getProperty("os.name", "");
        String osArch = System.getProperty("os.arch", "");
        String resource = resourceFor(osName, osArch).orElseThrow(() -> new IllegalStateException(
                "redis-server is not on the PATH, and there is no bundled one for " + osName + " " + osArch
                        + ". " + INSTALL_HINT));
        Path directory = Directories.createTemp("sluice-redis-bin-");
        ChildProcesses.register(directory);
        Path binary = directory.resolve("redis-server");
        try (InputStream in = BundledRedisServer.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("redis-server is not on the PATH, and " + resource
                        + " (from org.signal:embedded-redis) is not on the class path. " + INSTALL_HINT);
            }
            Files.copy(in, binary);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not copy " + resource + " to " + binary, e);
        }
        if (!binary.toFile().setExecutable(true, true)) {
            throw new IllegalStateException("Could not make " + binary + " executable");
        }
        extracted = binary;
        return binary;
    }
}
