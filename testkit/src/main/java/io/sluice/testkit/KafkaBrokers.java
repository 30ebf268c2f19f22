package io.sluice.testkit;

import io.sluice.embedded.InJvmKafkaBroker;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.Settings;
import java.util.Locale;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses and starts the Kafka broker for this JVM: a Testcontainers broker where Docker answers,
 * otherwise the in-JVM one, so the same tests run on a laptop without Docker and on CI with it.
 *
 * <p>Docker is asked through Testcontainers ({@code DockerClientFactory.isDockerAvailable()}),
 * after a quick local check that avoids its error log on machines without Docker; see
 * {@code DockerProbe}.
 *
 * <p>The {@value #MODE_SETTING} setting (system property or environment variable) decides:
 * {@code auto} (the default) as above, {@code embedded} always in the JVM without asking Docker
 * at all, {@code container} always in Docker, failing if it is absent.
 */
public final class KafkaBrokers {

    private static final Logger log = LoggerFactory.getLogger(KafkaBrokers.class);

    /** Setting (system property or environment variable): {@code auto}, {@code embedded} or {@code container}. */
    public static final String MODE_SETTING = "SLUICE_TEST_KAFKA";

    /** Where the broker runs. */
    enum Kind { IN_JVM, CONTAINER }

    private KafkaBrokers() {
    }

    /** Starts the broker chosen as described above, and logs one line saying which and why. */
    public static KafkaBroker start() {
        Kind kind = choose(Settings.get(MODE_SETTING).orElse("auto"), KafkaBrokers::dockerAvailable);
        return kind == Kind.CONTAINER ? ContainerKafkaBroker.start() : InJvmKafkaBroker.start();
    }

    /**
     * The decision, separate from its side effects so it can be tested without Docker. Docker is
     * only asked when the mode needs the answer.
     */
    static Kind choose(String mode, BooleanSupplier dockerAvailable) {
        switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "embedded":
                log.info("Kafka: in-JVM KRaft broker ({}=embedded)", MODE_SETTING);
                return Kind.IN_JVM;
            case "container":
                if (!dockerAvailable.getAsBoolean()) {
                    throw new IllegalStateException(MODE_SETTING + "=container but Docker does not answer."
                            + " Start Docker, or set " + MODE_SETTING + "=embedded to run Kafka in the JVM.");
                }
                log.info("Kafka: Testcontainers broker ({}=container)", MODE_SETTING);
                return Kind.CONTAINER;
            case "auto":
            case "":
                if (dockerAvailable.getAsBoolean()) {
                    log.info("Kafka: Testcontainers broker (Docker answers; set {}=embedded to run it in the JVM)",
                            MODE_SETTING);
                    return Kind.CONTAINER;
                }
                log.info("Kafka: in-JVM KRaft broker (Docker does not answer)");
                return Kind.IN_JVM;
            default:
                throw new IllegalArgumentException(MODE_SETTING + "=" + mode
                        + " is not one of: auto, embedded, container");
        }
    }

    /** Testcontainers' {@code isDockerAvailable()}, asked only where Docker seems configured. */
    static boolean dockerAvailable() {
        return DockerProbe.dockerAnswers();
    }
}
