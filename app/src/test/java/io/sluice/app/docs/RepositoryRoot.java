package io.sluice.app.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root, found from the test's working directory (a module's, under Maven). */
final class RepositoryRoot {

    private RepositoryRoot() {
    }

    static Path find() {
        Path here = Path.of("").toAbsolutePath();
        for (Path dir = here; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))
                    && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no repository root (README.md, docs/, pom.xml) above " + here);
    }
}
