package io.sluice.schemas.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The JSON Schema files shipped in this jar, and the one way to compile them.
 *
 * <p>The schemas are the published contract (producers in any language can validate against
 * them); the Java code mirrors them. Compiling them in one place keeps the validator settings
 * identical everywhere: draft 2020-12, and {@code format} asserted rather than merely annotated
 * (2020-12 makes it an annotation by default, which would let {@code "deadline": "tomorrow"}
 * through).
 */
public final class SchemaFiles {
  /** The value on {@code sluice.inbound}. */
  public static final String WORK_EVENT = "/schemas/work-event.schema.json";
  /** The JSON view of a dead letter's metadata. */
  public static final String DEAD_LETTER = "/schemas/dead-letter.schema.json";
  /** The YAML configuration file. */
  public static final String CONFIG = "/schemas/config.schema.json";

  /**
   * Our own annotation in config.schema.json: the phrase an error message puts after "expected".
   * Registered as a non-validation keyword so the validator neither rejects nor warns about it.
   */
  public static final String EXPECTED_KEYWORD = "x-expected";

  private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(
      SpecVersion.VersionFlag.V202012,
      builder -> builder.metaSchema(JsonMetaSchema.builder(JsonMetaSchema.getV202012())
          .keyword(new NonValidationKeyword(EXPECTED_KEYWORD))
          .build()));

  private static final SchemaValidatorsConfig VALIDATORS = SchemaValidatorsConfig.builder()
      .formatAssertionsEnabled(true)
      .build();

  private SchemaFiles() {}

  /** The schema file as a JSON tree (e.g. to read its defaults or annotations). */
  public static JsonNode read(String resource) {
    try (InputStream in = open(resource)) {
      return Json.mapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schema " + resource, e);
    }
  }

  /** The schema file compiled for validation. */
  public static JsonSchema compile(String resource) {
    return FACTORY.getSchema(read(resource), VALIDATORS);
  }

  private static InputStream open(String resource) {
    InputStream in = SchemaFiles.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalArgumentException("no schema resource " + resource + " on the classpath");
    }
    return in;
  }
}
