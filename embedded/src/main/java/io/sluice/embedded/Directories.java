package io.sluice.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Temporary directories for server data and logs, and their removal. */
final class Directories {

    private Directories() {
    }

    /** A new directory under {@code java.io.tmpdir}, named with {@code prefix} so leftovers are recognisable. */
    static Path createTemp(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temporary directory " + prefix + "*", e);
        }
    }

    /**
     * Deletes {@code dir} and everything in it. Best effort: a file that vanished meanwhile is
     * fine, and a failure is reported as an {@link UncheckedIOException} naming the directory.
     */
    static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete " + dir, e);
        }
    }
}
