package io.sluice.redis.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One operator setting as the operator topic keeps it: a pause or a tenant's registry record.
 *
 * <p><b>The record format</b> (one codec, read by every role):
 * <ul>
 *   <li>key: {@code pause:<provider>/<tenant>} ({@code *} for every) or {@code tenant:<id>},
 *       UTF-8: compaction keeps the latest value of each;</li>
 *   <li>value: UTF-8 JSON {@code {"v":1,"at":<epoch ms>,"data":{...}}}, {@code data} being
 *       exactly what Redis caches after {@code "<at> "} (a pause's {@code {"by","reason"}}, a
 *       tenant's record as {@code TenantCodec} writes it), so that seeding Redis again writes
 *       back the bytes the operator's write put there; a null value (a tombstone) for a resume or
 *       a delete.</li>
 * </ul>
 * A reader skips a value whose {@code v} it does not know (a newer writer's), rather than guess.
 *
 * <p><b>Secrets are never in the clear.</b> A field named {@code secret} or ending in
 * {@code Secret} (issue 33: an endpoint's signing secret, kept with the tenant record) must be an
 * object {@code {"sealed":"<key id>:<ciphertext, base64>"}}, encrypted by the writer with a key the
 * topic does not hold; a plain value is refused when written ({@link #of}) and its entry skipped
 * when read ({@link #decode}), so neither Kafka nor the Redis seeded from it ever holds one.
 *
 * @param kind     pause or tenant
 * @param id       the pause's scope field, or the tenant's id
 * @param atMillis when the operator wrote it (the writer's clock)
 * @param data     the JSON object Redis caches
 */
public record OperatorEntry(Kind kind, String id, long atMillis, String data) {
  /** The version of the value format this code writes and reads. */
  public static final int FORMAT = 1;
  /** Longest key or value read from the topic: larger ones are not Sluice's. */
  static final int MAX_BYTES = 64 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a key holds. */
  public enum Kind {
    PAUSE("pause:"), TENANT("tenant:");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }

    /** The topic's key of {@code id}. */
    public String key(String id) {
      return prefix + id;
    }
  }

  /** A key of the topic, parsed. */
  public record Key(Kind kind, String id) {
    public String text() {
      return kind.key(id);
    }

    public static Optional<Key> parse(byte[] key) {
      if (key == null || key.length > MAX_BYTES) {
        return Optional.empty();
      }
      String text = new String(key, StandardCharsets.UTF_8);
      for (Kind kind : Kind.values()) {
        if (text.startsWith(kind.prefix) && text.length() > kind.prefix.length()) {
          return Optional.of(new Key(kind, text.substring(kind.prefix.length())));
        }
      }
      return Optional.empty();
    }
  }

  public OperatorEntry {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(data, "data");
  }

  /**
   * An entry to write, checked: {@code data} must be a JSON object with no secret in the clear.
   *
   * @throws IllegalArgumentException naming the field otherwise
   */
  public static OperatorEntry of(Kind kind, String id, long atMillis, String data) {
    JsonNode json;
    try {
      json = JSON.readTree(data);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("operator state of " + kind.key(id) + ": not JSON");
    }
    if (json == null || !json.isObject()) {
      throw new IllegalArgumentException("operator state of " + kind.key(id) + ": not a JSON object");
    }
    clearSecret(json, "").ifPresent(path -> {
      throw new IllegalArgumentException(path + ": a secret is written sealed ({\"sealed\":...}),"
          + " never in the clear");
    });
    return new OperatorEntry(kind, id, atMillis, data);
  }

  public Key key() {
    return new Key(kind, id);
  }

  /** The value Redis caches: {@code "<atMillis> <data>"}. */
  public String cached() {
    return atMillis + " " + data;
  }

  /** The topic's value. */
  public byte[] value() {
    ObjectNode out = JSON.createObjectNode();
    out.put("v", FORMAT);
    out.put("at", atMillis);
    try {
      out.set("data", JSON.readTree(data));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("checked when made", e);
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The entry a record of the topic holds: empty for a tombstone (null value) and for a value this
   * code cannot trust (not its format, too large, a secret in the clear): such a key is treated as
   * absent, as Redis's readers treat a value that does not parse.
   */
  public static Optional<OperatorEntry> decode(Key key, byte[] value) {
    if (value == null || value.length > MAX_BYTES) {
      return Optional.empty();
    }
    try {
      JsonNode json = JSON.readTree(value);
      JsonNode data = json.path("data");
      if (json.path("v").asInt() != FORMAT || !json.path("at").canConvertToLong() || !data.isObject()
          || clearSecret(data, "").isPresent()) {
        return Optional.empty();
      }
      return Optional.of(new OperatorEntry(key.kind(), key.id(), json.path("at").asLong(),
          data.toString()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The path of the first secret field in {@code json} not held sealed, if any. */
  static Optional<String> clearSecret(JsonNode json, String path) {
    if (json.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = json.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        String here = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
        if (isSecretName(f.getKey()) && !isSealed(f.getValue())) {
          return Optional.of(here);
        }
        Optional<String> inner = clearSecret(f.getValue(), here);
        if (inner.isPresent()) {
          return inner;
        }
      }
    } else if (json.isArray()) {
      for (int i = 0; i < json.size(); i++) {
        Optional<String> inner = clearSecret(json.get(i), path + "[" + i + "]");
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    return Optional.empty();
  }

  private static boolean isSecretName(String name) {
    return name.equals("secret") || name.endsWith("Secret");
  }

  private static boolean isSealed(JsonNode value) {
    return value.isNull() || (value.isObject() && value.size() == 1 && value.path("sealed").isTextual());
  }
}
