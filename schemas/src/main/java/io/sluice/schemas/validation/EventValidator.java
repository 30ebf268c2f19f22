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
 * <p>Configuration-dependent rules (the provider is configured, cost within its maxCost, value
 * size) are {@link EventRules}'s. Thread-safe and stateless.
 */
public final class EventValidator {
  public static final int MAX_ID_LENGTH = 128;
  public static final int MAX_TENANT_LENGTH = 128;
  public static final int MAX_PROVIDER_LENGTH = 128;
  public static final int MAX_PATH_LENGTH = 2048;

  private static final ObjectReader READER = Json.reader()
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** ASCII characters a path may hold: RFC 3986 path, query and fragment characters, minus '@'. */
  private static final boolean[] PATH_CHARS = new boolean[128];

  static {
    String allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        + "-._~!$&'()*+,;=:/?#%";
    for (char c : allowed.toCharArray()) {
      PATH_CHARS[c] = true;
    }
  }

  /** Parses UTF-8 JSON bytes and checks every structural rule of the WorkEvent contract. */
  public ValidationResult validate(byte[] value) {
    if (value == null || value.length == 0) {
      return invalid("value is empty; a WorkEvent must be a JSON object");
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

  /** The first broken rule, in field order, or null when the event is valid. */
  private static String firstProblem(JsonNode root) {
    String problem = requiredText(root, "id", MAX_ID_LENGTH);
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

  /**
   * An event may only add a relative reference below its provider's base URL, never pick a host
   * or climb out of the base path. The rules, each also a {@code not} in the schema.
   */
  private static String pathProblem(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      return "field 'path' must be a string, got " + Shown.kind(node);
    }
    String path = node.textValue();
    String shown = Shown.quoted(path);
    if (path.codePointCount(0, path.length()) > MAX_PATH_LENGTH) {
      return "field 'path' must be at most " + MAX_PATH_LENGTH + " characters long, got "
          + path.codePointCount(0, path.length());
    }
    if (path.startsWith("//")) {
      return "field 'path' must be a relative path, not start with '//' (which names a host), got "
          + shown;
    }
    boolean inFirstSegment = true;
    boolean afterDot = false;
    for (int i = 0; i < path.length(); ) {
      char c = path.charAt(i);
      boolean dot;
      int width = 1;
      if (c == '%') {
        if (i + 2 >= path.length() || !isHex(path.charAt(i + 1)) || !isHex(path.charAt(i + 2))) {
          return "field 'path' may use '%' only as a %XX escape, got " + shown;
        }
        dot = path.charAt(i + 1) == '2' && (path.charAt(i + 2) == 'e' || path.charAt(i + 2) == 'E');
        width = 3;
      } else if (c >= 128 || !PATH_CHARS[c]) {
        return "field 'path' must be a relative path of URL characters (no whitespace, '@', '\\' "
            + "or non-ASCII; percent-encode them), got " + shown;
      } else if (c == ':' && inFirstSegment) {
        return "field 'path' must be a relative path without a scheme (no ':' before the first "
            + "'/', '?' or '#'), got " + shown;
      } else {
        dot = c == '.';
        if (c == '/' || c == '?' || c == '#') {
          inFirstSegment = false;
        }
      }
      if (dot && afterDot) {
        return "field 'path' must not contain '..' (nor %2e%2e), got " + shown;
      }
      afterDot = dot;
      i += width;
    }
    return null;
  }

  private static boolean isHex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
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
