package io.sluice.embedded;

import java.util.Optional;

/**
 * Reads a setting from a system property first, then from the environment variable of the same
 * name. System properties win so that a test can override a setting for one JVM without touching
 * the environment, which Java cannot change at run time.
 */
public final class Settings {

    private Settings() {
    }

    /** The trimmed, non-blank value of {@code name}, if set. */
    public static Optional<String> get(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            value = System.getenv(name);
        }
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }
}
