package io.sluice.schemas.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.ValidationMessage;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.serde.SchemaFiles;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The published schema and the hot-path validator must be one contract: every corpus sample gets
 * the same verdict from both (see corpus/README.md).
 */
class EventValidatorAgreementTest {
  private static final JsonSchema SCHEMA = SchemaFiles.compile(SchemaFiles.WORK_EVENT);
  /** The same strictness as EventValidator: a text it cannot parse is not a JSON instance. */
  private static final ObjectReader STRICT = Json.reader()
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final List<String> FIELDS_WITH_RULES =
      List.of("id", "tenant", "provider", "cost", "deadline", "path", "attributes", "deliverAt", "delay");

  private final EventValidator validator = new EventValidator();

  static Stream<Arguments> samples() throws IOException, URISyntaxException {
    Path corpus = Path.of(EventValidatorAgreementTest.class.getResource("/corpus").toURI());
    return Stream.of("valid", "invalid").flatMap(kind -> {
      try (Stream<Path> files = Files.list(corpus.resolve(kind))) {
        return files.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream()
            .map(f -> Arguments.of(kind + "/" + f.getFileName(), kind.equals("valid"), f));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void shouldGiveTheSameVerdictAsTheSchemaForEveryCorpusSample(String name, boolean expectValid,
      Path file) throws IOException {
    byte[] value = Files.readAllBytes(file);

    Set<ValidationMessage> schemaErrors = schemaVerdict(value);
    ValidationResult result = validator.validate(value);
    LeavingPayloadTest.assertSameVerdict(validator, value, result);

    assertEquals(expectValid, schemaErrors.isEmpty(), () -> "schema on " + name + ": " + schemaErrors);
    assertEquals(expectValid, result.isValid(), () -> "validator on " + name + ": " + result);
    if (result instanceof ValidationResult.Invalid invalid) {
      assertEquals(Reason.INVALID, invalid.reason());
      assertFalse(invalid.detail().isBlank(), name + " needs a detail");
      String field = fieldNamedBy(file.getFileName().toString());
      if (field != null) {
        assertTrue(invalid.detail().contains("'" + field + "'"),
            () -> name + " should name field '" + field + "': " + invalid.detail());
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("samples")
  void shouldBindValidSamplesExactlyAsJacksonDoes(String name, boolean expectValid, Path file)
      throws IOException {
    if (!expectValid) {
      return;
    }
    byte[] value = Files.readAllBytes(file);
    ValidationResult.Valid valid = assertInstanceOf(ValidationResult.Valid.class,
        validator.validate(value));
    WorkEvent bound = Json.mapper().readValue(value, WorkEvent.class);
    assertEquals(bound, valid.event(), name);
  }

  @Test
  void shouldKeepACorpusOfAtLeastTwelveValidAndTwentyFiveInvalidSamples() throws Exception {
    long valid = samples().filter(a -> (boolean) a.get()[1]).count();
    long invalid = samples().filter(a -> !(boolean) a.get()[1]).count();
    assertTrue(valid >= 12, "valid samples: " + valid);
    assertTrue(invalid >= 25, "invalid samples: " + invalid);
    // Whatever an event carries into an HTTP request has its unsendable cases in the corpus.
    for (String sample : List.of("id-crlf", "id-unicode", "attributes-value-crlf", "attributes-name-crlf",
        "path-fragment-hashes", "path-dot-segment", "path-dot-dot-semicolon", "path-crlf")) {
      assertTrue(samples().anyMatch(a -> a.get()[0].equals("invalid/" + sample + ".json")), sample);
    }
  }

  /** Edge cases of RFC 3339 where the date-time format and java.time could drift apart. */
  @ParameterizedTest
  @ValueSource(strings = {
      "2030-01-01T00:00:00Z", "2030-01-01T00:00:00.5Z", "2030-01-01T00:00:00.123456789Z",
      "2030-01-01T00:00:00.1234567891Z", "2030-01-01T00:00:00+18:00", "2030-01-01T00:00:00+18:01",
      "2030-01-01T00:00:00-18:00", "2030-01-01T00:00:00+14:00", "2030-01-01T00:00:00+05:60",
      "2030-01-01T00:00:00+00:00", "2030-01-01T00:00:00-00:00", "2016-12-31T23:59:60Z",
      "2030-01-01T24:00:00Z", "2030-13-01T00:00:00Z", "2030-00-10T00:00:00Z",
      "2030-01-32T00:00:00Z", "2028-02-29T00:00:00Z", "2030-02-29T00:00:00Z",
      "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2030-01-01T00:00:00Z\n",
      "2030-01-01T00:00:00.Z", "2030-01-01T00:00Z", "+12030-01-01T00:00:00Z",
      "2030-01-01T00:00:00+0100", "2030-1-01T00:00:00Z", "２０３０-01-01T00:00:00Z",
      "2030-01-01T00:00:00.000000000Z", "2030-01-01T00:00:00+01:30", "2030-01-01T00:00:00-01:30",
      "2030-01-01T00:00:00+00:59", "2030-01-01T00:00:00Z ", "2030-01-01T00:00:00ZZ",
      "2030-01-01T00:00:00+01:00Z", "2030-01-01T00:00:60Z", "2030-01-01T00:60:00Z",
      "2030-12-31T23:59:59.999999999-18:00", "2030-01-01T00:00:00+1:00", "2030-01-01T00:00:00"
          + "+01:00:00", "2030-01-01T00:00:00,5Z", "2030-01-01T00:00:00.5+05:45"})
  void shouldAgreeWithTheSchemaOnDeadlineEdgeCases(String deadline) throws IOException {
    ValidationResult result = assertAgreement(
        "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"deadline\":"
            + Json.mapper().writeValueAsString(deadline) + "}");
    if (result instanceof ValidationResult.Valid valid) {
      assertEquals(OffsetDateTime.parse(deadline).toInstant(), valid.event().deadline(), deadline);
    }
  }

  /** Edge cases of paths where the schema's regexes and the Java scanner could drift apart. */
  @ParameterizedTest
  @ValueSource(strings = {
      "", "a", "/", "a/b", "a//b", "//", "/.", "/..", ".", "..", "...", "a.b.c", "%2e", "%2e%2e",
      ".%2E", "%2E.", "a%2", "a%", "%41%42", "a:b", "a/b:c", "?a:b", "#x:y", "a?b#c", "a@b",
      "a\tb", "a\u2028b", "a\u00e9", "~user/x", "a[0]", "a|b", "a^b", "a{b}", "a`b", "a\"b",
      "a<b>", "a!$&'()*+,;=b", "\\x", "a\\b", "C:/x", "http:x", "mailto:a", "1:2", "a#b", "#x",
      "a#b#c", "./a", "a/./b", "a/.", "a/.;x", "a/..;/b", "%2e/a", "a/%2E?x", "a/%2e%2E", "?./x",
      "?a..b", "a?b/./c", "a?b/../c", ".well-known/x", "a/.b", "a/b.", "a.", ";", ".;", "a:b?c:d",
      "?a:b", "/", "/.", "/./a", "//a", "/a//b", "a/%2f..", "a\r\nb", "a\u0000", "a%00b", "a%0D%0A"})
  void shouldAgreeWithTheSchemaOnPathEdgeCases(String path) throws IOException {
    assertAgreement("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"path\":"
        + Json.mapper().writeValueAsString(path) + "}");
  }

  /** Ids: printable ASCII, 1 to 128, no space at either end (sent as the Idempotency-Key header). */
  @ParameterizedTest
  @ValueSource(strings = {"a", " ", " a", "a ", "a b", "\t", "a\tb", "~", "!", "\u007f", "\u0080", "\u00e9",
      "\u0100", "\ud83d\ude00", "a\n", "a\r", "\"", "\\", "\u2028", "\ufeffa", "a\u0000"})
  void shouldAgreeWithTheSchemaOnIdEdgeCases(String id) throws IOException {
    assertAgreement("{\"id\":" + Json.mapper().writeValueAsString(id)
        + ",\"tenant\":\"t\",\"provider\":\"p\"}");
    assertAgreement("{\"id\":" + Json.mapper().writeValueAsString("x".repeat(127) + id)
        + ",\"tenant\":\"t\",\"provider\":\"p\"}");
  }

  /** Attributes: names are HTTP tokens, values printable ASCII, space and tab. */
  @ParameterizedTest
  @ValueSource(strings = {"a", "", " ", " a", "a ", "\ta", "a\t", "a b", "a:b", "a\tb", "a\nb", "a\rb", "\u007f", "\u00e9", "\u0100",
      "X-Request-Id", "!#$%&'*+-.^_`|~", "(a)", "a/b", "a@b", "[a]", "{a}", "a\"b", "a;b", "a=b", "a,b",
      "a?b", "a\\b"})
  void shouldAgreeWithTheSchemaOnAttributeEdgeCases(String text) throws IOException {
    String quoted = Json.mapper().writeValueAsString(text);
    assertAgreement("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{" + quoted + ":\"v\"}}");
    assertAgreement("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-A\":" + quoted + "}}");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "1", "-1", "1.0", "1.5", "1e2", "1E0", "0.5e1", "-0.0", "1e-2",
      "2147483647", "2147483648", "9223372036854775808", "1e400", "null", "\"1\"", "[1]"})
  void shouldAgreeWithTheSchemaOnCostEdgeCases(String cost) throws IOException {
    assertAgreement("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":" + cost + "}");
  }

  private ValidationResult assertAgreement(String json) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);
    Set<ValidationMessage> schemaErrors = schemaVerdict(value);
    ValidationResult result = validator.validate(value);
    LeavingPayloadTest.assertSameVerdict(validator, value, result);
    if (schemaErrors.isEmpty() != result.isValid()) {
      fail("disagreement on " + json + ": schema " + schemaErrors + ", validator " + result);
    }
    return result;
  }

  private static Set<ValidationMessage> schemaVerdict(byte[] value) {
    JsonNode tree;
    try {
      tree = STRICT.readTree(value);
    } catch (IOException e) {
      return Set.of(ValidationMessage.builder().message("not JSON: {0}")
          .arguments(e.getMessage()).build());
    }
    if (tree == null || tree.isMissingNode()) {
      return Set.of(ValidationMessage.builder().message("no JSON value").build());
    }
    return SCHEMA.validate(tree);
  }

  /** "tenant-with-space.json" and "missing-tenant.json" are about field 'tenant'. */
  private static String fieldNamedBy(String fileName) {
    String stem = fileName.startsWith("missing-") ? fileName.substring("missing-".length())
        : fileName;
    for (String field : FIELDS_WITH_RULES) {
      if (stem.startsWith(field + "-") || stem.equals(field + ".json")) {
        return field;
      }
    }
    return null;
  }
}
