package io.sluice.testkit;

import io.sluice.embedded.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.testcontainers.DockerClientFactory;

/**
 * Answers "does Docker answer?" without noise on machines that have no Docker at all.
 *
 * <p>Testcontainers answers quickly (about half a second) when there is no daemon, but logs a
 * multi-line ERROR listing every strategy it tried, which every test run would then print. So
 * Testcontainers is asked only when something suggests Docker is configured: {@code DOCKER_HOST},
 * a {@code ~/.testcontainers.properties} file, or one of the sockets Docker Engine, Docker
 * Desktop, rootless Docker, Colima or Rancher Desktop create. Windows (named pipes) is always
 * asked. A missed exotic setup only means the in-JVM broker is used; set {@code DOCKER_HOST} to
 * be found.
 */
final class DockerProbe {

    private DockerProbe() {
    }

    static boolean dockerAnswers() {
        return looksConfigured() && DockerClientFactory.instance().isDockerAvailable();
    }

    static boolean looksConfigured() {
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            return true;
        }
        if (Settings.get("DOCKER_HOST").isPresent()) {
            return true;
        }
        return candidateFiles().stream().anyMatch(Files::exists);
    }

    private static List<Path> candidateFiles() {
        Path home = Path.of(System.getProperty("user.home", "/nonexistent"));
        List<Path> files = new ArrayList<>(List.of(
                home.resolve(".testcontainers.properties"),
                Path.of("/var/run/docker.sock"),
                home.resolve(".docker/run/docker.sock"),
                home.resolve(".docker/desktop/docker.sock"),
                home.resolve(".colima/default/docker.sock"),
                home.resolve(".colima/docker.sock"),
                home.resolve(".rd/docker.sock")));
        Settings.get("XDG_RUNTIME_DIR").ifPresent(dir -> files.add(Path.of(dir, "docker.sock")));
        return files;
    }
}
