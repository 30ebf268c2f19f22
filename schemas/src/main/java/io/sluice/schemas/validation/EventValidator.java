package io.sluice.schemas.validation;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.sluice.config.DelayText;
import io.sluice.schemas.event.Priority;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * <p>Three readings, one verdict. The hot path ({@link #validateLeavingPayload}, the gate and the
 * dispatcher) first scans the value's bytes itself ({@link EventScanner}: the usual event in one
 * pass, with no parser, context, symbol table or buffers to set up), and reads what that scan
 * leaves (escapes in names or rule fields, deep nesting, large objects, anything not plainly
 * valid) with the streaming parser: the few fields with rules become small
 * nodes, every other value (above all the payload) is skipped by the tokenizer without building a
 * tree, and the rules below run on those nodes, the same code the tree reading runs. It is only
 * ever the judge of a valid value: whenever it finds anything wrong, or anything it does not
 * read itself (a non-integral or long cost, an attribute that is not a string), the value is read
 * again as a tree ({@link #validate}) and that reading decides, so every detail sentence is the
 * tree reading's. The parser is the same (one {@link com.fasterxml.jackson.databind.ObjectMapper}),
 * so its own rules (number lengths, nesting depth, UTF-8) hold in both; duplicate keys at any
 * depth are the tree reading parser's to report, and the streaming reading finds them itself
 * ({@link Names}) and hands such a value over.
 *
 * <p>Configuration-dependent rules (the provider is configured, cost within its maxCost, value
 * size) are {@link EventRules}'s. Thread-safe and stateless.
 */
public final class EventValidator {
  public static final int MAX_ID_LENGTH = IdempotencyKey.MAX_LENGTH;
  public static final int MAX_TENANT_LENGTH = 128;
  public static final int MAX_PROVIDER_LENGTH = 128;
  public static final int MAX_PATH_LENGTH = RelativePath.MAX_LENGTH;
  public static final int MAX_ORDERING_KEY_LENGTH = 128;

  /**
   * Why {@code id} cannot be an event's id ({@link IdempotencyKey}: 1 to {@value #MAX_ID_LENGTH}
   * printable ASCII characters, no space at either end), as a sentence naming field 'id'; null
   * when it can. For those who take an id from outside to look an event up.
   */
  public static String idProblem(String id) {
    return IdempotencyKey.problem(id);
  }

  private static final ObjectReader READER = Json.reader()
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  /**
   * The streaming reading's parser: the same parser and limits, but duplicate names are found by
   * {@link #streamed} itself ({@link Names}). Jackson's detector builds a hash set for every object
   * of more than two names (every event) and hashes each name into it: a tenth of a stream
   * thread's time in the gate's profile. A duplicate found here sends the value to the tree
   * reading, whose parser detects it and says where.
   */
  private static final ObjectReader STREAMING = Json.reader();

  /**
   * The verdict of {@link #validate}, read without building the payload: a valid value's event
   * has every field but {@code payload}, which is null (whoever needs the payload slices it from
   * the value's bytes). The gate and the dispatcher never read the payload as a tree.
   */
  public ValidationResult validateLeavingPayload(byte[] value) {
    Fields fields = null;
    if (value != null && value.length > 0 && notUtf8(value) == null) {
      // The usual event in one pass of our own; what it leaves, the parser's streaming reading.
      fields = EventScanner.fields(value);
      if (fields == null) {
        fields = streamed(value);
      }
    }
    if (fields != null && firstProblem(fields) == null) {
      return new ValidationResult.Valid(bind(fields, null));
    }
    // Something is wrong, or not read here: the tree reading decides and says why.
    ValidationResult tree = validate(value);
    if (tree instanceof ValidationResult.Valid valid) {
      WorkEvent e = valid.event();
      return new ValidationResult.Valid(new WorkEvent(
          e.id(), e.tenant(), e.provider(), e.cost(), e.deadline(), e.path(), null, e.attributes(),
          e.deliverAt(), e.delay(), e.orderingKey(), e.priority()));
    }
    return tree;
  }

  /**
   * The rule fields of a value that is one JSON object, read with the streaming parser; null
   * when the value is not that, or when a rule field holds something not read here (the tree
   * reading then decides). Unknown fields and the payload are skipped by the tokenizer, which
   * still checks them (duplicate keys, nesting, number lengths).
   */
  static Fields streamed(byte[] value) {
    try (JsonParser p = STREAMING.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      Fields f = new Fields();
      Names names = new Names();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (!names.add(name)) {
          return null;
        }
        JsonToken token = p.nextToken();
        JsonNode node;
        switch (name) {
          case "id", "tenant", "provider", "deadline", "path", "deliverAt", "delay", "orderingKey", "priority" ->
              node = scalar(p, token);
          case "cost" -> node = token == JsonToken.VALUE_NUMBER_INT
              && p.getNumberType() == JsonParser.NumberType.INT ? IntNode.valueOf(p.getIntValue()) : scalar(p, token);
          case "attributes" -> node = token == JsonToken.START_OBJECT ? textObject(p) : scalar(p, token);
          default -> {
            if (!skipChecked(p, token)) {
              return null;
            }
            continue;
          }
        }
        if (node == null) {
          return null;
        }
        f.put(name, node);
      }
      // The object must be the whole value (FAIL_ON_TRAILING_TOKENS in the tree reading).
      return p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null ? f : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** A string or null as a node; null for anything else (the tree reading then decides). */
  private static JsonNode scalar(JsonParser p, JsonToken token) throws IOException {
    if (token == JsonToken.VALUE_STRING) {
      return TextNode.valueOf(p.getText());
    }
    return token == JsonToken.VALUE_NULL ? NullNode.getInstance() : null;
  }

  /** An object of string values as a node, the parser at its start; null if any value is not a string. */
  private static ObjectNode textObject(JsonParser p) throws IOException {
    ObjectNode object = JsonNodeFactory.instance.objectNode();
    Names names = new Names();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      if (!names.add(name) || p.nextToken() != JsonToken.VALUE_STRING) {
        return null;
      }
      object.put(name, p.getText());
    }
    return object;
  }

  /**
   * Skips the value whose first token is {@code token}, as {@code skipChildren} does (the
   * tokenizer still checks everything in it), and answers false if an object in it repeats a
   * name.
   */
  private static boolean skipChecked(JsonParser p, JsonToken token) throws IOException {
    if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
      return true;
    }
    // The objects open around the parser, innermost last; null for an array.
    List<Names> open = new ArrayList<>();
    open.add(token == JsonToken.START_OBJECT ? new Names() : null);
    while (!open.isEmpty()) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return false;
      }
      switch (t) {
        case FIELD_NAME -> {
          if (!open.get(open.size() - 1).add(p.currentName())) {
            return false;
          }
        }
        case START_OBJECT -> open.add(new Names());
        case START_ARRAY -> open.add(null);
        case END_OBJECT, END_ARRAY -> open.remove(open.size() - 1);
        default -> { }
      }
    }
    return true;
  }

  /**
   * The names of one object read so far, to find one that comes twice. Most objects have a
   * handful of names, compared in turn; past {@link #FEW} they go into a hash set.
   */
  static final class Names {
    static final int FEW = 8;
    private final String[] few = new String[FEW];
    private int count;
    private Set<String> many;

    /** False when the object had {@code name} already. */
    boolean add(String name) {
      if (many != null) {
        return many.add(name);
      }
      for (int i = 0; i < count; i++) {
        if (few[i].equals(name)) {
          return false;
        }
      }
      if (count < FEW) {
        few[count++] = name;
        return true;
      }
      many = new HashSet<>(Arrays.asList(few));
      return many.add(name);
    }
  }

  /** The fields the rules read, from either reading; absent ones are null. */
  static final class Fields {
    JsonNode id;
    JsonNode tenant;
    JsonNode provider;
    JsonNode cost;
    JsonNode deadline;
    JsonNode path;
    JsonNode attributes;
    JsonNode deliverAt;
    JsonNode delay;
    JsonNode orderingKey;
    JsonNode priority;

    static final List<String> NAMES = List.of("id", "tenant", "provider", "cost", "deadline", "path",
        "attributes", "deliverAt", "delay", "orderingKey", "priority");

    static Fields of(JsonNode root) {
      Fields f = new Fields();
      for (String name : NAMES) {
        JsonNode node = root.get(name);
        if (node != null) {
          f.put(name, node);
        }
      }
      return f;
    }

    void put(String name, JsonNode node) {
      switch (name) {
        case "id" -> id = node;
        case "tenant" -> tenant = node;
        case "provider" -> provider = node;
        case "cost" -> cost = node;
        case "deadline" -> deadline = node;
        case "path" -> path = node;
        case "attributes" -> attributes = node;
        case "deliverAt" -> deliverAt = node;
        case "delay" -> delay = node;
        case "orderingKey" -> orderingKey = node;
        case "priority" -> priority = node;
        default -> throw new IllegalArgumentException("no rule reads field " + name);
      }
    }
  }

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
    Fields fields = Fields.of(root);
    String problem = firstProblem(fields);
    return problem == null ? new ValidationResult.Valid(bind(fields, root.get("payload"))) : invalid(problem);
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
  private static String firstProblem(Fields f) {
    String problem = requiredText(f.id, "id", MAX_ID_LENGTH);
    if (problem == null) {
      problem = IdempotencyKey.problem(f.id.textValue());
    }
    if (problem == null) {
      problem = tenantProblem(f.tenant);
    }
    if (problem == null) {
      problem = requiredText(f.provider, "provider", MAX_PROVIDER_LENGTH);
    }
    if (problem == null) {
      problem = costProblem(f.cost);
    }
    if (problem == null) {
      problem = deadlineProblem(f.deadline);
    }
    if (problem == null) {
      problem = pathProblem(f.path);
    }
    if (problem == null) {
      problem = attributesProblem(f.attributes);
    }
    if (problem == null) {
      problem = whenProblem(f.deliverAt, f.delay);
    }
    if (problem == null) {
      problem = orderingKeyProblem(f.orderingKey);
    }
    if (problem == null) {
      problem = priorityProblem(f.priority);
    }
    return problem;
  }

  /**
   * An {@code orderingKey} is absent, null, or 1 to {@link #MAX_ORDERING_KEY_LENGTH} of
   * {@code A-Z a-z 0-9 . _ : / -}: it names a Redis key ({@code OrderKeys}), so it holds no space,
   * no brace and nothing a log line would show otherwise.
   */
  private static String orderingKeyProblem(JsonNode key) {
    if (key == null || key.isNull()) {
      return null;
    }
    String expected = "field 'orderingKey' must be 1 to " + MAX_ORDERING_KEY_LENGTH
        + " of A-Z a-z 0-9 . _ : / -";
    if (!key.isTextual()) {
      return expected + ", got " + Shown.kind(key);
    }
    String text = key.textValue();
    if (text.isEmpty() || text.length() > MAX_ORDERING_KEY_LENGTH) {
      return expected + ", got " + text.length() + " characters";
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean allowed = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
          || c == '.' || c == '_' || c == ':' || c == '/' || c == '-';
      if (!allowed) {
        return expected + ", got " + Shown.quoted(text);
      }
    }
    return null;
  }

  /**
   * A {@code priority} is absent, null, or one of the {@link Priority} classes by its lower-case
   * name; any other value (another case, a number, a class not defined) is refused, never read as
   * the default: a producer asking for a class it does not get is told so.
   */
  private static String priorityProblem(JsonNode priority) {
    if (priority == null || priority.isNull()) {
      return null;
    }
    String expected = "field 'priority' must be one of " + Priority.names();
    if (!priority.isTextual()) {
      return expected + ", got " + Shown.kind(priority);
    }
    return Priority.of(priority.textValue()).isPresent() ? null
        : expected + ", got " + Shown.quoted(priority.textValue());
  }

  private static String requiredText(JsonNode node, String field, int maxLength) {
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
    return instantProblem(node, "deadline");
  }

  /**
   * {@code deliverAt} is an instant as a deadline is; {@code delay} a {@link DelayText}; not both
   * (which would the producer mean?). How far ahead either may be is the provider's
   * {@code maxDelay}, configuration, judged at the gate.
   */
  private static String whenProblem(JsonNode deliverAt, JsonNode delay) {
    String problem = instantProblem(deliverAt, "deliverAt");
    if (problem != null || delay == null || delay.isNull()) {
      return problem;
    }
    String expected = "field 'delay' must be a whole number of ms, s, m, h or d like \"90s\" or \"1d\" (at most "
        + DelayText.MAX_DIGITS + " digits)";
    if (!delay.isTextual()) {
      return expected + ", got " + Shown.kind(delay);
    }
    if (DelayText.parse(delay.textValue()) == null) {
      return expected + ", got " + Shown.quoted(delay.textValue());
    }
    return deliverAt == null || deliverAt.isNull() ? null
        : "fields 'deliverAt' and 'delay' cannot both be given: give the instant or the wait";
  }

  private static String instantProblem(JsonNode node, String field) {
    if (node == null || node.isNull()) {
      return null;
    }
    String expected = "field '" + field + "' must be an ISO-8601 instant like 2030-01-01T00:00:00Z";
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

  /** Builds the event from fields that passed every check (so no check is repeated here). */
  private static WorkEvent bind(Fields f, JsonNode payload) {
    JsonNode cost = f.cost;
    JsonNode deadline = f.deadline;
    JsonNode path = f.path;
    JsonNode attributes = f.attributes;
    Map<String, String> attributeMap = Map.of();
    if (attributes != null && attributes.isObject() && !attributes.isEmpty()) {
      attributeMap = new HashMap<>();
      for (Map.Entry<String, JsonNode> e : attributes.properties()) {
        attributeMap.put(e.getKey(), e.getValue().textValue());
      }
    }
    return new WorkEvent(
        f.id.textValue(),
        f.tenant.textValue(),
        f.provider.textValue(),
        cost == null || cost.isNull() ? WorkEvent.DEFAULT_COST : cost.intValue(),
        deadline == null || deadline.isNull() ? null : DeadlineText.parse(deadline.textValue()),
        path == null || path.isNull() ? null : path.textValue(),
        payload,
        attributeMap,
        f.deliverAt == null || f.deliverAt.isNull() ? null : DeadlineText.parse(f.deliverAt.textValue()),
        f.delay == null || f.delay.isNull() ? null : DelayText.parse(f.delay.textValue()),
        f.orderingKey == null || f.orderingKey.isNull() ? null : f.orderingKey.textValue(),
        f.priority == null || f.priority.isNull() ? null : Priority.of(f.priority.textValue()).orElseThrow());
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
