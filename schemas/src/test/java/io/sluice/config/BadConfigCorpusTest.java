package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus of bad configuration files in {@code config-corpus/bad}: each is loaded as at
 * start-up and must be refused with an error that names, on a line of its own, the field its
 * first line gives ({@code # field: providers.payments-api.forwardHeaders[0]}). Every password in
 * the corpus contains {@code S3cret}, and no error may show one.
 */
class BadConfigCorpusTest {
  private static final String FIELD = "# field: ";
  private static final String SECRET_MARK = "S3cret";

  static Stream<Path> corpus() throws IOException, URISyntaxException {
    Path dir = Path.of(BadConfigCorpusTest.class.getResource("/config-corpus/bad").toURI());
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  @Test
  void shouldHoldAtLeastTwentyFiles() throws Exception {
    assertTrue(corpus().count() >= 20, "the corpus has " + corpus().count() + " files");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void shouldRefuseTheFileNamingItsField(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    assertTrue(lines.get(0).startsWith(FIELD), file + " must start with '" + FIELD + "'");
    String field = lines.get(0).substring(FIELD.length()).strip();

    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(file, Map.of()));

    assertTrue(e.errors().stream().anyMatch(error -> error.startsWith(field + ": ")),
        file.getFileName() + " should be refused naming " + field + ", got:\n" + e.getMessage());
    assertFalse(e.getMessage().contains(SECRET_MARK), "a password shown:\n" + e.getMessage());
  }
}
