package io.sluice.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Applies {@code SLUICE_<PATH>} environment variables to a configuration tree, before it is
 * validated, so that an override is checked exactly like the file.
 *
 * <p>The path's segments are separated by a double underscore, and each segment is matched
 * ignoring case, '-' and '_' (environment names can hold neither '-' nor lower case): first
 * against the keys already in the tree at that level ({@code PAYMENTS_API} finds
 * {@code payments-api}), then against the settings the schema declares there
 * ({@code TOPIC_PREFIX} finds {@code topicPrefix}), then against names used elsewhere in the tree
 * ({@code SLUICE_TENANTS__INITECH__QUOTAS__PAYMENTS_API} finds the provider {@code payments-api}).
 * A segment matching none of these is created in lower case, which is how a variable adds a
 * tenant or a provider. The value is read as a YAML
 * flow value, so {@code 8} is a number and {@code [1s, 5s]} a list, except where the schema
 * expects a string, where the text is kept as written (a tier named {@code 1} stays "1").
 *
 * <p>Variables apply shallowest first, so {@code SLUICE_KAFKA__BOOTSTRAP} refines a whole
 * {@code SLUICE_KAFKA} rather than being erased by it. {@code SLUICE_CONFIG} names the file
 * itself; it is the command line's business and is skipped here, as are the other variables of
 * {@link #NOT_SETTINGS}.
 */
final class EnvOverrides {
  static final String PREFIX = "SLUICE_";
  /**
   * Variables of the {@code SLUICE_} family that are not configuration: the file's path, the
   * redis-server binary the demo, chaos and bench start (embedded's RedisBinaries), and the
   * switches of the test suite (the browser test required, the test broker's kind and image).
   * Child processes inherit them, so reading them as settings would stop every role with
   * "unknown setting".
   */
  static final Set<String> NOT_SETTINGS = Set.of(
      "SLUICE_CONFIG", "SLUICE_REDIS_SERVER", "SLUICE_REQUIRE_CHROMIUM", "SLUICE_TEST_KAFKA", "SLUICE_KAFKA_IMAGE");
  private static final String SEPARATOR = "__";
  private static final String KAFKA_PROPERTIES = "kafka.properties";
  private static final YAMLMapper YAML = new YAMLMapper();

  private final ConfigSchema schema;
  private final List<Problem> problems = new ArrayList<>();
  /** Overridden or created path → the variable responsible, to point error messages at it. */
  private final Map<String, String> origins = new HashMap<>();

  EnvOverrides(ConfigSchema schema) {
    this.schema = schema;
  }

  /** Applies every {@code SLUICE_} variable of {@code env} to {@code tree}, in place. */
  void apply(ObjectNode tree, Map<String, String> env) {
    List<String> names = new ArrayList<>();
    env.forEach((name, value) -> {
      if (name.startsWith(PREFIX) && !NOT_SETTINGS.contains(name) && value != null) {
        names.add(name);
      }
    });
    names.sort(Comparator.comparingInt((String n) -> n.split(SEPARATOR, -1).length)
        .thenComparing(Comparator.naturalOrder()));
    for (String name : names) {
      applyOne(tree, name, env.get(name));
    }
  }

  List<Problem> problems() {
    return problems;
  }

  /**
   * Notes which variable set a problem's setting (or a mapping above it), so that a typo in a
   * variable is reported as that variable's fault and not as a mystery in the file.
   */
  Problem annotate(Problem problem) {
    String best = null;
    for (String path : origins.keySet()) {
      boolean covers = problem.path().equals(path) || problem.path().startsWith(path + ".")
          || problem.path().startsWith(path + "[");
      if (covers && (best == null || path.length() > best.length())) {
        best = path;
      }
    }
    return best == null ? problem : problem.withNote("(set by " + origins.get(best) + ")");
  }

  private void applyOne(ObjectNode tree, String name, String raw) {
    String[] segments = name.substring(PREFIX.length()).split(SEPARATOR, -1);
    ObjectNode node = tree;
    JsonNode nodeSchema = schema.root();
    String path = "";
    for (int i = 0; i < segments.length; i++) {
      if (segments[i].isEmpty()) {
        problems.add(new Problem(path, name + " has an empty path segment (a stray '_')"));
        return;
      }
      String key = keyFor(tree, node, nodeSchema, segments[i], name, path);
      if (key == null) {
        return;
      }
      path = Problem.join(path, key);
      JsonNode childSchema = schema.child(nodeSchema, key);
      if (i == segments.length - 1) {
        JsonNode value = parse(raw, childSchema, name, path);
        if (value != null && isProviderRate(path, i) && node.path("limits").isArray()) {
          String provider = path.substring(0, path.length() - ".rate".length());
          setRateInLimits((ArrayNode) node.get("limits"), value, Problem.join(provider, "limits"),
              name);
        } else if (value != null) {
          node.set(key, value);
          origins.put(path, name);
        }
        return;
      }
      JsonNode child = node.get(key);
      if (child == null || child.isNull()) {
        child = node.putObject(key);
        origins.putIfAbsent(path, name);
      } else if (!child.isObject()) {
        problems.add(new Problem(path, "is " + ConfigSchema.shownAt(path, child)
            + ", not a mapping, so " + name + " cannot set a setting inside it"));
        return;
      }
      node = (ObjectNode) child;
      nodeSchema = childSchema;
    }
  }

  private static boolean isProviderRate(String path, int depth) {
    return depth == 2 && path.startsWith("providers.") && path.endsWith(".rate");
  }

  /**
   * {@code rate: R} means {@code limits: [{rate: R}]}, and a provider may not have both. A
   * variable that sets the rate of a provider whose file declares {@code limits} therefore sets
   * the rate limit among them (added first when there is none), which is what its name says,
   * rather than failing start-up on a conflict the file never had.
   */
  private void setRateInLimits(ArrayNode limits, JsonNode rate, String listPath, String name) {
    for (int i = 0; i < limits.size(); i++) {
      if (limits.get(i).isObject() && limits.get(i).has("rate")) {
        ((ObjectNode) limits.get(i)).set("rate", rate);
        origins.put(Problem.join(Problem.index(listPath, i), "rate"), name);
        return;
      }
    }
    limits.insertObject(0).set("rate", rate);
    origins.put(Problem.index(listPath, 0), name);
  }

  /**
   * The key a segment means: one already at this level; else a setting the schema declares here;
   * else a name used anywhere in the tree; else the segment in lower case.
   */
  private String keyFor(ObjectNode root, ObjectNode node, JsonNode nodeSchema, String segment,
      String name, String path) {
    if (path.equals(KAFKA_PROPERTIES)) {
      return kafkaPropertyKey(node, segment);
    }
    String wanted = normalized(segment);
    List<String> inTree = new ArrayList<>();
    node.fieldNames().forEachRemaining(k -> {
      if (normalized(k).equals(wanted)) {
        inTree.add(k);
      }
    });
    if (inTree.size() > 1) {
      problems.add(new Problem(path, name + " is ambiguous here: it matches "
          + String.join(" and ", inTree)));
      return null;
    }
    if (inTree.size() == 1) {
      return inTree.get(0);
    }
    for (String declared : schema.declaredNames(nodeSchema)) {
      if (normalized(declared).equals(wanted)) {
        return declared;
      }
    }
    // A new entry usually names something defined elsewhere: a tenant's quota override is keyed
    // by a provider name, a provider's quota by a tier name. Reuse that spelling.
    Set<String> elsewhere = new TreeSet<>();
    collectKeys(root, wanted, elsewhere);
    if (elsewhere.size() > 1) {
      problems.add(new Problem(path, name + " is ambiguous here: it could mean "
          + String.join(" or ", elsewhere)));
      return null;
    }
    return elsewhere.isEmpty() ? segment.toLowerCase(Locale.ROOT) : elsewhere.iterator().next();
  }

  /**
   * Kafka property names are dotted ({@code security.protocol}), and a variable name can hold no
   * dot: under {@code kafka.properties} each '_' of a segment stands for a '.'
   * ({@code SLUICE_KAFKA__PROPERTIES__SASL_JAAS_CONFIG} sets {@code sasl.jaas.config}). A key the
   * file already has is matched ignoring case, '.', '-' and '_'.
   */
  private static String kafkaPropertyKey(ObjectNode properties, String segment) {
    String wanted = normalized(segment).replace(".", "");
    List<String> inTree = new ArrayList<>();
    properties.fieldNames().forEachRemaining(k -> {
      if (normalized(k).replace(".", "").equals(wanted)) {
        inTree.add(k);
      }
    });
    return inTree.size() == 1 ? inTree.get(0) : segment.toLowerCase(Locale.ROOT).replace('_', '.');
  }

  private static void collectKeys(JsonNode node, String wanted, Set<String> found) {
    if (node.isObject()) {
      node.properties().forEach(e -> {
        if (normalized(e.getKey()).equals(wanted)) {
          found.add(e.getKey());
        }
        collectKeys(e.getValue(), wanted, found);
      });
    } else if (node.isArray()) {
      node.forEach(child -> collectKeys(child, wanted, found));
    }
  }

  private JsonNode parse(String raw, JsonNode targetSchema, String name, String path) {
    boolean wantsText = schema.acceptsText(targetSchema);
    if (raw.isBlank()) {
      return TextNode.valueOf("");
    }
    JsonNode value;
    try {
      value = YAML.readTree(raw);
    } catch (JacksonException e) {
      if (wantsText) {
        return TextNode.valueOf(raw.strip());
      }
      // The parser's message quotes the text, which may hold a password or a JAAS config.
      problems.add(new Problem(path, name + " is not a valid YAML value"
          + (mayHoldSecrets(path) ? "" : ": " + e.getOriginalMessage())));
      return null;
    }
    if (value == null || value.isMissingNode()
        || wantsText && (value.isNumber() || value.isBoolean())) {
      return TextNode.valueOf(raw.strip());
    }
    return value;
  }

  /** Whether a value set at {@code path} may be or hold a Redis password or a Kafka secret. */
  private static boolean mayHoldSecrets(String path) {
    return path.isEmpty() || path.equals("redis") || path.startsWith("redis.")
        || path.equals("kafka") || path.startsWith(KAFKA_PROPERTIES);
  }

  private static String normalized(String key) {
    return key.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
  }
}
