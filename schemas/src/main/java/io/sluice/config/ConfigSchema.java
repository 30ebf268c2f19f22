package io.sluice.config;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.JsonNodePath;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import io.sluice.schemas.serde.SchemaFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * config.schema.json, for two uses: validating a configuration tree with messages a user can act
 * on, and walking the schema to learn which settings exist at a path (environment overrides need
 * that to find {@code topicPrefix} from {@code TOPIC_PREFIX}).
 *
 * <p>The validator's own messages ({@code /providers/x/rate: does not match the regex pattern
 * ^[0-9]+...}) speak JSON Pointer and regex. Ours speak the file: the dotted path, then "expected"
 * and the phrase the schema gives for that shape in its {@code x-expected} annotation, then what
 * was found.
 */
final class ConfigSchema {
  private static final int MAX_SHOWN = 60;

  private final JsonNode root;
  private final JsonSchema compiled;

  private ConfigSchema(JsonNode root, JsonSchema compiled) {
    this.root = root;
    this.compiled = compiled;
  }

  /** Compiling a schema is costly; the file never changes while the JVM runs. */
  private static final class Holder {
    static final ConfigSchema INSTANCE =
        new ConfigSchema(SchemaFiles.read(SchemaFiles.CONFIG), SchemaFiles.compile(SchemaFiles.CONFIG));
  }

  static ConfigSchema get() {
    return Holder.INSTANCE;
  }

  /** The schema of the whole file. */
  JsonNode root() {
    return root;
  }

  /** Follows local {@code $ref}s ({@code #/$defs/...}); null stays null. */
  JsonNode resolve(JsonNode schema) {
    JsonNode current = schema;
    for (int hops = 0; current != null && current.has("$ref") && hops < 16; hops++) {
      current = root.at(current.get("$ref").asText().substring(1));
    }
    return current == null || current.isMissingNode() ? null : current;
  }

  /** The schema of {@code key} inside an object schema (a declared property or a map value). */
  JsonNode child(JsonNode objectSchema, String key) {
    JsonNode schema = resolve(objectSchema);
    if (schema == null) {
      return null;
    }
    JsonNode declared = schema.path("properties").get(key);
    if (declared != null) {
      return resolve(declared);
    }
    JsonNode additional = schema.get("additionalProperties");
    return additional != null && additional.isObject() ? resolve(additional) : null;
  }

  /** The property names an object schema declares (empty for maps). */
  List<String> declaredNames(JsonNode objectSchema) {
    JsonNode schema = resolve(objectSchema);
    List<String> names = new ArrayList<>();
    if (schema != null) {
      schema.path("properties").fieldNames().forEachRemaining(names::add);
    }
    return names;
  }

  /**
   * True if the schema accepts a string and no mapping or list: a value from the environment is
   * then kept as the text written ({@code 007} stays "007").
   */
  boolean acceptsText(JsonNode schema) {
    JsonNode resolved = resolve(schema);
    JsonNode type = resolved == null ? null : resolved.get("type");
    if (type == null) {
      return false;
    }
    if (type.isTextual()) {
      return type.asText().equals("string");
    }
    boolean text = false;
    for (JsonNode t : type) {
      text |= t.asText().equals("string");
      if (t.asText().equals("object") || t.asText().equals("array")) {
        return false;
      }
    }
    return text;
  }

  /** The schema's {@code type} keyword when it is a single type. */
  Optional<String> type(JsonNode schema) {
    JsonNode resolved = resolve(schema);
    JsonNode type = resolved == null ? null : resolved.get("type");
    return type != null && type.isTextual() ? Optional.of(type.asText()) : Optional.empty();
  }

  /** The {@code x-expected} phrase of a schema, e.g. {@code a rate like "50/s", ...}. */
  Optional<String> expected(JsonNode schema) {
    JsonNode resolved = resolve(schema);
    JsonNode phrase = resolved == null ? null : resolved.get(SchemaFiles.EXPECTED_KEYWORD);
    return phrase == null ? Optional.empty() : Optional.of(phrase.asText());
  }

  /** Every schema violation of a configuration tree, deduplicated and sorted by path. */
  List<Problem> validate(JsonNode config) {
    TreeSet<Problem> problems = new TreeSet<>();
    for (ValidationMessage message : compiled.validate(config)) {
      problems.add(describe(message));
    }
    return new ArrayList<>(problems);
  }

  private Problem describe(ValidationMessage m) {
    String at = dotted(m.getInstanceLocation());
    // The schema object holding the failed keyword, e.g. #/$defs/rate for a failed pattern.
    JsonNode owner = root.at(pointer(m.getSchemaLocation().getFragment().getParent()));
    JsonNode keyword = root.at(pointer(m.getSchemaLocation().getFragment()));
    String property = m.getProperty();
    switch (m.getType()) {
      case "required": {
        Optional<String> what = expected(child(owner, property));
        return new Problem(Problem.join(at, property),
            "missing" + what.map(e -> "; expected " + e).orElse(""));
      }
      case "additionalProperties":
        return new Problem(Problem.join(at, property),
            "unknown setting (known here: " + String.join(", ", declaredNames(owner)) + ")");
      case "propertyNames":
        return new Problem(Problem.join(at, property), "expected "
            + expected(keyword).orElse("another name") + ", got " + quoted(property));
      case "minItems":
      case "minProperties":
        return new Problem(at,
            "must not be empty" + expected(owner).map(e -> "; expected " + e).orElse(""));
      default:
        break;
    }
    String got = ", got " + shownAt(at, m.getInstanceNode());
    Optional<String> phrase = expected(owner);
    if (phrase.isPresent()) {
      return new Problem(at, "expected " + phrase.get() + got);
    }
    return new Problem(at, switch (m.getType()) {
      case "type" -> "expected " + (keyword.isArray() ? join(keyword) : keyword.asText()) + got;
      case "enum" -> "expected one of " + join(keyword) + got;
      case "minimum" -> "must be at least " + keyword.asText() + got;
      case "exclusiveMinimum" -> "must be greater than " + keyword.asText() + got;
      case "maximum" -> "must be at most " + keyword.asText() + got;
      default -> m.getError() + got;
    });
  }

  /** {@code providers.payments-api.quotas.free}, {@code ladder[2]}; empty for the root. */
  private static String dotted(JsonNodePath path) {
    String dotted = "";
    for (int i = 0; i < path.getNameCount(); i++) {
      Object element = path.getElement(i);
      dotted = element instanceof Integer index
          ? Problem.index(dotted, index)
          : Problem.join(dotted, String.valueOf(element));
    }
    return dotted;
  }

  private static JsonPointer pointer(JsonNodePath path) {
    JsonPointer pointer = JsonPointer.empty();
    for (int i = 0; path != null && i < path.getNameCount(); i++) {
      Object element = path.getElement(i);
      pointer = element instanceof Integer index
          ? pointer.appendIndex(index)
          : pointer.appendProperty(String.valueOf(element));
    }
    return pointer;
  }

  private static String join(JsonNode values) {
    List<String> texts = new ArrayList<>();
    values.forEach(v -> texts.add(v.asText()));
    return String.join(", ", texts);
  }

  /** A value as the user would recognise it: "fast", 0, [1s, 5s], cut short when long. */
  static String shown(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    String text = node.toString();
    return text.length() <= MAX_SHOWN ? text : text.substring(0, MAX_SHOWN) + "…";
  }

  /**
   * A value as {@link #shown}, unless the setting at {@code path} may hold a secret: a Redis URI
   * shows with its user info masked, a secret Kafka property not at all, and any other value with
   * what looks like a secret masked ({@link Secrets#scrubLikely}).
   */
  static String shownAt(String path, JsonNode node) {
    if (path.equals("redis.uri") && node != null && node.isTextual()) {
      return quoted(Secrets.uri(node.asText()));
    }
    if (isSecretProperty(path)) {
      return "a value that is not shown (it may hold a secret)";
    }
    return Secrets.scrubLikely(shown(node));
  }

  /** True for the path of a secret Kafka property, {@code kafka.properties.sasl.jaas.config}. */
  static boolean isSecretProperty(String path) {
    String prefix = "kafka.properties.";
    return path.startsWith(prefix) && Secrets.isSecretProperty(path.substring(prefix.length()));
  }

  static String quoted(String text) {
    return shown(TextNode.valueOf(text));
  }
}
