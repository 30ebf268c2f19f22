package io.sluice.schemas.validation;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Decides whether an inbound value is a structurally valid {@link WorkEvent}: the rules of
 * {@code schemas/work-event.schema.json}, written out in Java.
 *
 * <p>Why not run the schema: this runs once per inbound record on the gate's hot path, at up to a
 * hundred thousand records a second per stream thread, and a general schema engine costs many
 * times one Jackson tree parse. So: one parse, then a fixed sequence of field checks, the first
 * failure returned as a sentence naming the field. The schema stays the published contract, and
 * {@code EventValidatorAgreementTest} runs a corpus of samples through both to keep them equal.
 *
 * <p>Two parser settings are deliberate. Duplicate keys are rejected, because JSON parsers differ
 * on which duplicate wins and the id, tenant or provider must mean one thing to every reader.
 * Trailing content after the object is rejected, because {@code {...}garbage} is not JSON.
 *
 * <p>Whatever the event carries into an HTTP request must be sendable, so that an input fault is
 * decided here, once, and never costs a provider attempt: the id ({@link IdempotencyKey}), the
 * attributes ({@link AttributeHeader}) and the path ({@link RelativePath}, the same rule object the
 * HTTP provider resolves paths with).
 *
 * <p>Configuration-dependent rules (the provider is configured, cost within its maxCost, value
 * size) are {@link EventRules}'s. Thread-safe and stateless.
 */
public final class EventValidator {
  public static final int MAX_ID_LENGTH = IdempotencyKey.MAX_LENGTH;
  public static final int MAX_TENANT_LENGTH = 128;
  public static final int MAX_PROVIDER_LENGTH = 128;
  public static final int MAX_PATH_LENGTH = RelativePath.MAX_LENGTH;

  private static final ObjectReader READER = Json.reader()
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** Parses UTF-8 JSON bytes and checks every structural rule of the WorkEvent contract. */
  public ValidationResult validate(byte[] value) {
    if (value == null || value.length == 0) {
      return invalid("value is empty; a WorkEvent must be a JSON object");
    }
    String encoding = notUtf8(value);
    if (encoding != null) {
      return invalid(encoding);
    }
    JsonNode root;
    try {
      root = READER.readTree(value);
    } catch (JacksonException e) {
      return invalid("value is not valid JSON: " + e.getOriginalMessage() + at(e.getLocation()));
    } catch (IOException e) {
      return invalid("value is not valid JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      return invalid("value is blank; a WorkEvent must be a JSON object");
    }
    if (!root.isObject()) {
      return invalid("value must be a JSON object, got " + Shown.kind(root));
    }
    String problem = firstProblem(root);
    return problem == null ? new ValidationResult.Valid(bind(root)) : invalid(problem);
  }

  /**
   * Why the value is not plain UTF-8 JSON, or null. Jackson, given bytes, detects UTF-16 and UTF-32
   * (by their zero bytes) and skips a byte order mark on its own, so such a value would pass here;
   * but every other reader of the event (the dispatcher, the provider receiving the payload as
   * the request body, a consumer of the DLQ) takes the bytes as UTF-8. The contract is UTF-8
   * without a BOM (RFC 8259 section 8.1), and the check is cheap: JSON text in UTF-8 never has a
   * zero byte in its first four, and never starts with EF BB BF. Invalid UTF-8 sequences further
   * on are refused by Jackson's UTF-8 parser itself.
   */
  private static String notUtf8(byte[] value) {
    if (value.length >= 3 && (value[0] & 0xff) == 0xef && (value[1] & 0xff) == 0xbb && (value[2] & 0xff) == 0xbf) {
      return "value starts with a UTF-8 byte order mark; a WorkEvent is UTF-8 JSON without one";
    }
    if (value.length >= 2 && ((value[0] & 0xff) == 0xfe && (value[1] & 0xff) == 0xff
        || (value[0] & 0xff) == 0xff && (value[1] & 0xff) == 0xfe)) {
      return "value starts with a UTF-16 byte order mark; a WorkEvent is UTF-8 JSON";
    }
    for (int i = 0; i < Math.min(4, value.length); i++) {
      if (value[i] == 0) {
        return "value has a zero byte at offset " + i + " (UTF-16 or UTF-32 text?); a WorkEvent is UTF-8 JSON";
      }
    }
    return null;
  }

  /** The first broken rule, in field order, or null when the event is valid. */
  private static String firstProblem(JsonNode root) {
    String problem = requiredText(root, "id", MAX_ID_LENGTH);
    if (problem == null) {
      problem = IdempotencyKey.problem(root.get("id").textValue());
    }
    if (problem == null) {
      problem = tenantProblem(root.get("tenant"));
    }
    if (problem == null) {
      problem = requiredText(root, "provider", MAX_PROVIDER_LENGTH);
    }
    if (problem == null) {
      problem = costProblem(root.get("cost"));
    }
    if (problem == null) {
      problem = deadlineProblem(root.get("deadline"));
    }
    if (problem == null) {
      problem = pathProblem(root.get("path"));
    }
    if (problem == null) {
      problem = attributesProblem(root.get("attributes"));
    }
    return problem;
  }

  private static String requiredText(JsonNode root, String field, int maxLength) {
    JsonNode node = root.get(field);
    if (node == null) {
      return "field '" + field + "' is required";
    }
    if (!node.isTextual()) {
      return "field '" + field + "' must be a string, got " + Shown.kind(node);
    }
    // JSON Schema counts code points, not UTF-16 units: an emoji is one character.
    String text = node.textValue();
    int length = text.codePointCount(0, text.length());
    if (length < 1 || length > maxLength) {
      return "field '" + field + "' must be 1 to " + maxLength + " characters long, got "
          + length;
    }
    return null;
  }

  private static String tenantProblem(JsonNode node) {
    if (node == null) {
      return "field 'tenant' is required";
    }
    if (!node.isTextual()) {
      return "field 'tenant' must be a string, got " + Shown.kind(node);
    }
    String tenant = node.textValue();
    boolean ok = !tenant.isEmpty() && tenant.length() <= MAX_TENANT_LENGTH;
    for (int i = 0; ok && i < tenant.length(); i++) {
      ok = isTenantChar(tenant.charAt(i));
    }
    return ok ? null : "field 'tenant' must match [A-Za-z0-9._:-]{1," + MAX_TENANT_LENGTH
        + "}, got " + Shown.quoted(tenant);
  }

  private static boolean isTenantChar(char c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
        || c == '.' || c == '_' || c == ':' || c == '-';
  }

  /** Absent or null means the default. 2.0 is the integer 2, as in JSON Schema. */
  private static String costProblem(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    String expected = "field 'cost' must be a whole number from 1 to " + Integer.MAX_VALUE;
    if (!node.isNumber()) {
      return expected + ", got " + Shown.kind(node);
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToInt() && node.intValue() >= 1 ? null
          : expected + ", got " + node.asText();
    }
    double d = node.doubleValue();
    if (!Double.isFinite(d) || d != Math.rint(d)) {
      return expected + ", got " + node.asText();
    }
    return d >= 1 && d <= Integer.MAX_VALUE ? null : expected + ", got " + node.asText();
  }

  private static String deadlineProblem(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    String expected = "field 'deadline' must be an ISO-8601 instant like 2030-01-01T00:00:00Z";
    if (!node.isTextual()) {
      return expected + ", got " + Shown.kind(node);
    }
    return DeadlineText.parse(node.textValue()) != null ? null
        : expected + ", got " + Shown.quoted(node.textValue());
  }

  /** The path rules are {@link RelativePath}'s, shared with the HTTP provider. */
  private static String pathProblem(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      return "field 'path' must be a string, got " + Shown.kind(node);
    }
    return RelativePath.problem(node.textValue());
  }

  private static String attributesProblem(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      return "field 'attributes' must be an object of string values, got " + Shown.kind(node);
    }
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (!e.getValue().isTextual()) {
        return "field 'attributes' must be an object of string values, but attribute "
            + Shown.quoted(e.getKey()) + " is " + Shown.kind(e.getValue());
      }
      String problem = AttributeHeader.problem(e.getKey(), e.getValue().textValue());
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** Builds the event from a tree that passed every check (so no check is repeated here). */
  private static WorkEvent bind(JsonNode root) {
    JsonNode cost = root.get("cost");
    JsonNode deadline = root.get("deadline");
    JsonNode path = root.get("path");
    JsonNode attributes = root.get("attributes");
    Map<String, String> attributeMap = Map.of();
    if (attributes != null && attributes.isObject() && !attributes.isEmpty()) {
      attributeMap = new HashMap<>();
      for (Map.Entry<String, JsonNode> e : attributes.properties()) {
        attributeMap.put(e.getKey(), e.getValue().textValue());
      }
    }
    return new WorkEvent(
        root.get("id").textValue(),
        root.get("tenant").textValue(),
        root.get("provider").textValue(),
        cost == null || cost.isNull() ? WorkEvent.DEFAULT_COST : cost.intValue(),
        deadline == null || deadline.isNull() ? null : DeadlineText.parse(deadline.textValue()),
        path == null || path.isNull() ? null : path.textValue(),
        root.get("payload"),
        attributeMap);
  }

  private static ValidationResult.Invalid invalid(String detail) {
    return new ValidationResult.Invalid(Reason.INVALID, detail);
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
