package io.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;

import io.sluice.testkit.KafkaBrokers.Kind;

/** Which broker runs where, without starting one. */
class KafkaBrokersTest {

    @Test
    void shouldRunInTheJvmWhenAskedWithoutAskingDocker() {
        assertEquals(Kind.IN_JVM, KafkaBrokers.choose("embedded", () -> fail("Docker must not be asked")));
        assertEquals(Kind.IN_JVM, KafkaBrokers.choose(" EMBEDDED ", () -> fail("Docker must not be asked")));
    }

    @Test
    void shouldUseAContainerWhenDockerAnswers() {
        assertEquals(Kind.CONTAINER, KafkaBrokers.choose("auto", () -> true));
        assertEquals(Kind.CONTAINER, KafkaBrokers.choose("container", () -> true));
    }

    @Test
    void shouldFallBackToTheJvmWhenDockerDoesNotAnswer() {
        assertEquals(Kind.IN_JVM, KafkaBrokers.choose("auto", () -> false));
    }

    @Test
    void shouldExplainWhyAContainerCannotRunWithoutDocker() {
        IllegalStateException error = assertThrows(IllegalStateException.class,
                () -> KafkaBrokers.choose("container", () -> false));
        assertTrue(error.getMessage().contains("SLUICE_TEST_KAFKA=embedded"), error.getMessage());
    }

    @Test
    void shouldRejectAnUnknownMode() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> KafkaBrokers.choose("docker", () -> true));
        assertTrue(error.getMessage().contains("auto, embedded, container"), error.getMessage());
    }
}
