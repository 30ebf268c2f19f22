package io.sluice.app.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes {@code docs/configuration-reference.md} from {@code config.schema.json}: one row per
 * setting, with its default, what it accepts (the schema's {@code x-expected}, the phrase the
 * loader's errors use) and its description. Test code, so it never enters the production jar;
 * {@link ConfigurationReferenceTest} fails when the committed page differs from what this writes,
 * and {@code -Dsluice.docs.write=true} on that test writes it.
 *
 * <p>Paths name a map's key by what it holds: {@code providers.<name>.rate},
 * {@code tenants.<tenant>.tier}, {@code providers.<name>.limits[].per}.
 */
public final class ConfigurationReference {

    /** Where the page lives, relative to the repository root. */
    public static final Path PAGE = Path.of("docs", "configuration-reference.md");

    private static final String SCHEMA_RESOURCE = "/schemas/config.schema.json";
    private static final Pattern KEY_WORDS = Pattern.compile("^a mapping of ([a-z]+) (?:names|ids) to");

    private final JsonNode root;
    private final Map<String, List<Row>> sections = new LinkedHashMap<>();

    private record Row(String path, boolean required, String defaultValue, String accepts, String meaning) {}

    private ConfigurationReference(JsonNode root) {
        this.root = root;
    }

    /** The page, as generated from the schema on the class path. */
    public static String generate() {
        try (InputStream in = ConfigurationReference.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SCHEMA_RESOURCE + " is not on the class path");
            }
            return generate(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String generate(JsonNode schema) {
        ConfigurationReference reference = new ConfigurationReference(schema);
        reference.walkTop();
        return reference.render();
    }

    public static void main(String[] args) throws IOException {
        Path target = args.length > 0 ? Path.of(args[0]) : PAGE;
        Files.writeString(target, generate(), StandardCharsets.UTF_8);
    }

    private void walkTop() {
        List<String> required = requiredOf(root);
        Iterator<Map.Entry<String, JsonNode>> fields = root.path("properties").fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode node = resolve(field.getValue());
            String section = isObject(node) || isMap(node) ? field.getKey() : "top level";
            walk(section, field.getKey(), field.getValue(), required.contains(field.getKey()));
        }
    }

    private void walk(String section, String path, JsonNode declared, boolean required) {
        JsonNode node = resolve(declared);
        if (isObject(node)) {
            if (!path.contains(".") && !path.contains("<") || hasOwnMeaning(declared, node)) {
                add(section, path, required, declared, node);
            }
            List<String> requiredHere = requiredOf(node);
            Iterator<Map.Entry<String, JsonNode>> fields = node.path("properties").fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                walk(section, path + "." + field.getKey(), field.getValue(), requiredHere.contains(field.getKey()));
            }
            return;
        }
        if (isMap(node)) {
            add(section, path, required, declared, node);
            JsonNode values = resolve(node.get("additionalProperties"));
            if (isObject(values) || isMap(values)) {
                walk(section, path + "." + keyPlaceholder(node), node.get("additionalProperties"), false);
            }
            return;
        }
        add(section, path, required, declared, node);
        JsonNode items = resolve(node.get("items"));
        if ("array".equals(node.path("type").asText()) && isObject(items)) {
            List<String> requiredHere = requiredOf(items);
            Iterator<Map.Entry<String, JsonNode>> fields = items.path("properties").fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                walk(section, path + "[]." + field.getKey(), field.getValue(), requiredHere.contains(field.getKey()));
            }
        }
    }

    private static boolean hasOwnMeaning(JsonNode declared, JsonNode node) {
        return declared.has("description") || node.has("description") || node.has("default")
                || declared.has("default");
    }

    private void add(String section, String path, boolean required, JsonNode declared, JsonNode node) {
        sections.computeIfAbsent(section, s -> new ArrayList<>())
                .add(new Row(path, required, defaultOf(declared, node), accepts(node), meaning(declared, node)));
    }

    /**
     * A map's key, named by the schema's own words for it: "a mapping of tier names to ..." is
     * {@code <tier>}, "a mapping of tenant ids to ..." {@code <tenant>}; otherwise {@code <name>}.
     */
    private static String keyPlaceholder(JsonNode map) {
        Matcher words = KEY_WORDS.matcher(map.path("x-expected").asText(""));
        return words.find() ? "<" + words.group(1) + ">" : "<name>";
    }

    private static String defaultOf(JsonNode declared, JsonNode node) {
        JsonNode value = declared.has("default") ? declared.get("default") : node.get("default");
        if (value == null) {
            return "";
        }
        if (value.isObject() && value.isEmpty()) {
            return "";
        }
        return "`" + (value.isTextual() ? value.asText() : value.toString()) + "`";
    }

    private static String accepts(JsonNode node) {
        StringBuilder text = new StringBuilder();
        if (node.has("x-expected")) {
            text.append(node.get("x-expected").asText());
        } else if (node.has("type")) {
            text.append(node.get("type").isArray() ? node.get("type").toString() : node.get("type").asText());
        }
        if (node.has("dependentRequired")) {
            Iterator<Map.Entry<String, JsonNode>> pairs = node.get("dependentRequired").fields();
            while (pairs.hasNext()) {
                Map.Entry<String, JsonNode> pair = pairs.next();
                text.append("; ").append(pair.getKey()).append(" needs ");
                List<String> names = new ArrayList<>();
                pair.getValue().forEach(n -> names.add(n.asText()));
                text.append(String.join(", ", names));
            }
        }
        return text.toString();
    }

    private static String meaning(JsonNode declared, JsonNode node) {
        if (declared.has("description")) {
            return declared.get("description").asText();
        }
        return node.path("description").asText("");
    }

    private JsonNode resolve(JsonNode node) {
        if (node == null || !node.has("$ref")) {
            return node;
        }
        String ref = node.get("$ref").asText();
        if (!ref.startsWith("#/$defs/")) {
            throw new IllegalStateException("a $ref outside $defs: " + ref);
        }
        JsonNode target = root.path("$defs").get(ref.substring("#/$defs/".length()));
        if (target == null) {
            throw new IllegalStateException("no definition for " + ref);
        }
        return resolve(target);
    }

    private static boolean isObject(JsonNode node) {
        return node != null && "object".equals(node.path("type").asText()) && node.has("properties");
    }

    private static boolean isMap(JsonNode node) {
        return node != null && "object".equals(node.path("type").asText()) && !node.has("properties")
                && node.path("additionalProperties").isObject();
    }

    private static List<String> requiredOf(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.path("required").forEach(n -> names.add(n.asText()));
        return names;
    }

    private String render() {
        StringBuilder page = new StringBuilder();
        page.append("# Configuration reference\n\n");
        page.append("<!-- Generated from schemas/src/main/resources/schemas/config.schema.json by\n");
        page.append("     ConfigurationReference (app's test code). Do not edit: change the schema, then run\n");
        page.append("     mvn -B -q -pl app -am test -Dtest=ConfigurationReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.docs.write=true -->\n\n");
        page.append("Every setting of the YAML file, as `config.schema.json` states it: its default, what it\n");
        page.append("accepts (the phrase a configuration error quotes) and what it means. `<tier>`, `<provider>`,\n");
        page.append("`<tenant>` and `<rule>` stand for a map's keys (`<name>` for a tier's or a provider's, as\n");
        page.append("the map says), `[]` for every entry of a list.\n");
        page.append("Every setting can also come from the environment: `SLUICE_` and its path, segments\n");
        page.append("separated by `__` ([configuration.md](configuration.md) says how, and what reloads).\n");
        for (Map.Entry<String, List<Row>> section : sections.entrySet()) {
            page.append("\n## ").append(section.getKey()).append("\n\n");
            page.append("| setting | default | accepts | meaning |\n|---|---|---|---|\n");
            for (Row row : section.getValue()) {
                page.append("| `").append(row.path()).append('`').append(row.required() ? " (required)" : "")
                        .append(" | ").append(cell(row.defaultValue()))
                        .append(" | ").append(cell(row.accepts()))
                        .append(" | ").append(cell(row.meaning())).append(" |\n");
            }
        }
        return page.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
