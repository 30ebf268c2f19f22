package io.sluice.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads the YAML configuration file into a {@link SluiceConfig}, or explains everything wrong with
 * it in one {@link ConfigException}.
 *
 * <p>The steps, in order, each for a reason:
 * <ol>
 *   <li>Parse the YAML into a tree (duplicate keys are an error: YAML would keep the last one
 *       silently, and a setting that is written twice was probably meant once).</li>
 *   <li>Apply {@code SLUICE_*} environment variables ({@link EnvOverrides}) to the tree,
 *       <em>before</em> validation, so an override is held to exactly the rules of the file.</li>
 *   <li>Drop keys without a value, which mean "the default".</li>
 *   <li>Validate against {@code config.schema.json}, the published contract; its messages are
 *       rewritten to name the setting by its dotted path.</li>
 *   <li>Map to the records, filling in {@link ConfigDefaults} ({@link ConfigBinder}).</li>
 *   <li>Check what a schema cannot: names that must refer to each other, ladder order
 *       ({@link ConfigChecks}).</li>
 * </ol>
 * The environment is a parameter, never read here, so tests (and a CLI flag such as
 * {@code --ignore-env}) decide what it holds.
 */
public final class ConfigLoader {
  private static final YAMLMapper YAML = YAMLMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  private ConfigLoader() {}

  /** Loads a configuration file, with {@code env} (usually {@code System.getenv()}) on top. */
  public static SluiceConfig load(Path yamlFile, Map<String, String> env) {
    return parse(read(yamlFile), env, yamlFile.toString(), true);
  }

  private static String read(Path yamlFile) {
    try {
      return Files.readString(yamlFile);
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + yamlFile + " does not exist");
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + yamlFile + ": " + e, e);
    }
  }

  /**
   * {@link #load} for the operator's commands ({@code topics}, {@code status}, {@code pause},
   * {@code dlq}, {@code tenants}, {@code produce}), which never call a provider: a provider's
   * credential ({@code auth}, {@code signing}, {@code tls} passwords) whose variable is unset or
   * whose file is missing is kept unread instead of stopping the command, and TLS stores are not
   * opened, so an operator's shell needs Kafka's and Redis's settings, not every partner's
   * secret. Everything else is checked as strictly as {@link #load}.
   */
  public static SluiceConfig loadForOperator(Path yamlFile, Map<String, String> env) {
    return parse(read(yamlFile), env, yamlFile.toString(), false);
  }

  /** Parses configuration text, with {@code env} on top. */
  public static SluiceConfig parse(String yaml, Map<String, String> env) {
    return parse(yaml, env, "config", true);
  }

  /** {@link #parse} as {@link #loadForOperator} reads a file. */
  static SluiceConfig parseForOperator(String yaml, Map<String, String> env) {
    return parse(yaml, env, "config", false);
  }

  private static SluiceConfig parse(String yaml, Map<String, String> env, String source,
      boolean credentialsNeeded) {
    ObjectNode tree = readTree(yaml, source);
    ConfigSchema schema = ConfigSchema.get();
    EnvOverrides overrides = new EnvOverrides(schema);
    overrides.apply(tree, env);
    fail(overrides, overrides.problems(), tree);
    withoutNulls(tree);
    fail(overrides, schema.validate(tree), tree);

    ConfigBinder binder = new ConfigBinder(env, credentialsNeeded);
    SluiceConfig config = binder.bind(tree);
    List<Problem> problems = new ArrayList<>(binder.problems());
    problems.addAll(new ConfigChecks().check(config));
    fail(overrides, problems, tree);
    return config;
  }

  /** An empty file is an empty mapping: everything may come from the environment. */
  private static ObjectNode readTree(String yaml, String source) {
    JsonNode tree;
    try {
      tree = YAML.readTree(yaml);
    } catch (JacksonException e) {
      // Not the exception as cause: its message quotes the file, which may hold a password.
      throw new ConfigException(source + at(e.getLocation()) + " is not valid YAML: "
          + Secrets.scrubLikely(e.getOriginalMessage()));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      return JsonNodeFactory.instance.objectNode();
    }
    if (!tree.isObject()) {
      throw new ConfigException(source + " must be a mapping of settings at the top level, got "
          + ConfigSchema.shown(tree));
    }
    return (ObjectNode) tree;
  }

  /**
   * A key with no value means "the default", as if it were absent. In YAML that is what a section
   * looks like once its contents are commented out ({@code tenants:} followed by nothing), and
   * calling that an error would punish the most ordinary edit.
   */
  private static void withoutNulls(JsonNode node) {
    if (node instanceof ObjectNode object) {
      object.properties().removeIf(e -> e.getValue().isNull());
    }
    node.forEach(ConfigLoader::withoutNulls);
  }

  /**
   * Throws the problems, if any, each scrubbed of every secret the tree holds: the messages are
   * written not to show secrets, and this makes sure of it, whatever a message quotes.
   */
  private static void fail(EnvOverrides overrides, List<Problem> problems, JsonNode tree) {
    if (problems.isEmpty()) {
      return;
    }
    List<String> secrets = secretsIn(tree);
    TreeSet<Problem> sorted = new TreeSet<>();
    problems.forEach(p -> sorted.add(overrides.annotate(p)));
    throw new ConfigException(sorted.stream()
        .map(p -> Secrets.scrubLikely(Secrets.scrub(p.toString(), secrets))).toList());
  }

  /**
   * The Redis URI's user info, each secret Kafka property's value and each provider's secret
   * settings (as written), longest first.
   */
  private static List<String> secretsIn(JsonNode tree) {
    List<String> secrets = new ArrayList<>();
    JsonNode uri = tree.path("redis").path("uri");
    if (uri.isTextual()) {
      String text = uri.asText();
      int at = text.lastIndexOf('@');
      int start = text.indexOf("://") + 3;
      if (at > start) {
        String userInfo = text.substring(start, at);
        secrets.add(userInfo);
        int colon = userInfo.indexOf(':');
        if (colon >= 0 && colon < userInfo.length() - 1) {
          secrets.add(userInfo.substring(colon + 1));
        }
        try {
          RedisUri parsed = RedisUri.parse(text);
          if (parsed.password() != null) {
            secrets.add(parsed.password());
          }
        } catch (IllegalArgumentException e) {
          // the raw user info above is masked all the same
        }
      }
    }
    tree.path("kafka").path("properties").properties().forEach(e -> {
      if (Secrets.isSecretProperty(e.getKey()) && e.getValue().isValueNode()) {
        secrets.add(e.getValue().asText());
      }
    });
    tree.path("providers").forEach(provider -> {
      textsIn(provider.path("auth").path("bearer"), secrets);
      textsIn(provider.path("auth").path("header").path("value"), secrets);
      textsIn(provider.path("auth").path("basic").path("password"), secrets);
      textsIn(provider.path("auth").path("oauth2").path("clientSecret"), secrets);
      textsIn(provider.path("signing"), secrets);
      textsIn(provider.path("tls").path("keyStorePassword"), secrets);
      textsIn(provider.path("tls").path("trustStorePassword"), secrets);
    });
    secrets.sort(Comparator.comparingInt(String::length).reversed());
    return secrets;
  }

  /**
   * Every secret written as is in {@code node}; a reference ({@code ${env:NAME}}) is not a secret
   * and stays readable, so an error can say which variable is missing.
   */
  private static void textsIn(JsonNode node, List<String> texts) {
    if (node.isTextual() && !node.asText().isEmpty() && !Secret.isReference(node.asText())) {
      texts.add(node.asText());
    }
    node.forEach(child -> textsIn(child, texts));
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
