package io.sluice.app.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every class and test the docs name in backticks exists: README.md and docs/**.md are scanned
 * (but not docs/decisions/, which is history) for code spans that read as a Java type ({@code FooBar}, {@code FooBarTest}, {@code FooIT},
 * {@code FooBar.method}, {@code Foo.java}), and each must be declared in a {@code .java} file of
 * the repository (a file of that name, or a nested type). Names of other projects' classes the
 * docs mention are listed in {@link #ELSEWHERE}.
 */
class DocumentedNamesTest {

    /**
     * Names that read as types but are not ours to find: classes of Kafka, the JDK and the
     * libraries the docs name, and HTTP fields spelt like a type ({@code RateLimit}).
     */
    static final Set<String> ELSEWHERE = Set.of("RateLimit",
            "MetricRegistry", "TopologyTestDriver", "ServiceLoader", "ScramLoginModule",
            "DescribeCluster", "DescribeTopics", "DescribeProducers", "WriteTxnMarkers",
            "RedisNoScriptException", "MessageDigest", "CachedStateStore", "InternalProcessorContext",
            "KafkaProducer", "ProducerMetadata");

    /** A code span that is one type name, maybe qualified by a member or followed by .java. */
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern TYPE_LIKE = Pattern.compile(
            "([A-Z][A-Za-z0-9]*)(?:\\.[A-Za-z_][A-Za-z0-9_]*)*(?:\\(\\))?");
    private static final Pattern CAMEL = Pattern.compile("[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+");
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s*- alert:\\s*([A-Za-z0-9]+)");
    private static final Pattern DECLARATION = Pattern.compile(
            "\\b(?:class|interface|record|enum|@interface)\\s+([A-Z][A-Za-z0-9]*)");

    @Test
    void everyClassAndTestTheDocsNameExists() {
        Path root = RepositoryRoot.find();
        Set<String> declared = declaredTypes(root);
        List<String> missing = new ArrayList<>();
        for (Path doc : docs(root)) {
            for (String name : namesIn(read(doc))) {
                if (!declared.contains(name) && !ELSEWHERE.contains(name)) {
                    missing.add(root.relativize(doc) + ": " + name);
                }
            }
        }
        assertEquals(List.of(), missing, "names in the docs with no source file or type of that name");
    }

    @Test
    void theScanReadsTypeNamesInCodeSpansOnly() {
        String markdown = """
                The gate (`GateTopology`, `GateIT`, `TokenBucketMathTest`) uses `SlotMarkers.mark` and
                `Lease.java`; `RateLimit-Policy`, `sluice.ready`, `X-RateLimit-Limit`, `HTTP`, `Gate`
                and NotInBackticks are not names to check, nor is `gate.maxLease`.
                """;
        assertEquals(new TreeSet<>(List.of("GateIT", "GateTopology", "Lease", "SlotMarkers",
                "TokenBucketMathTest")), namesIn(markdown));
    }

    @Test
    void theTreeIsReadForDeclaredTypesNestedOnesIncluded() {
        Set<String> declared = declaredTypes(RepositoryRoot.find());
        assertTrue(declared.contains("DocumentedNamesTest"), "this file");
        assertTrue(declared.contains("Row"), "a record nested in ConfigurationReference");
        assertTrue(!declared.contains("NoSuchClassAnywhere"));
    }

    static Set<String> namesIn(String markdown) {
        Set<String> names = new TreeSet<>();
        Matcher span = CODE_SPAN.matcher(markdown);
        while (span.find()) {
            String text = span.group(1).trim();
            boolean javaFile = text.endsWith(".java");
            if (javaFile) {
                text = text.substring(0, text.length() - ".java".length());
            }
            Matcher type = TYPE_LIKE.matcher(text);
            if (!type.matches()) {
                continue;
            }
            String name = type.group(1);
            if (javaFile || CAMEL.matcher(name).matches()) {
                names.add(name);
            }
        }
        return names;
    }

    private static Set<String> declaredTypes(Path root) {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(DocumentedNamesTest::isSource).forEach(file -> {
                String fileName = file.getFileName().toString();
                names.add(fileName.substring(0, fileName.length() - ".java".length()));
                Matcher declaration = DECLARATION.matcher(read(file));
                while (declaration.find()) {
                    names.add(declaration.group(1));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The Prometheus alerts are named like types too; they are declared in the rules file.
        Matcher alert = ALERT.matcher(read(root.resolve("deploy/prometheus/sluice-alerts.yaml")));
        while (alert.find()) {
            names.add(alert.group(1));
        }
        return names;
    }

    private static boolean isSource(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && !path.contains("/target/") && !path.contains("/.git/");
    }

    private static List<Path> docs(Path root) {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
            // docs/decisions/ is history: a dated note names the classes of its day, which later
            // changes may rename or merge (PartitionLedger became OffsetLedger).
            files.filter(f -> f.toString().endsWith(".md"))
                    .filter(f -> !root.resolve("docs").relativize(f).startsWith("decisions"))
                    .sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
