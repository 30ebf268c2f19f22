package io.sluice.schemas.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.schemas.serde.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The scan of our own ({@link EventScanner}) accepts nothing the parser refuses, and reads the
 * rule fields exactly as the tree reading does; whatever it leaves, the other readings decide, so
 * {@link EventValidator#validateLeavingPayload} keeps the tree reading's verdict and detail on
 * every value. Held on generated events (fields in any order, every kind of rule value, payloads
 * of every JSON kind, whitespace), on those events with a few bytes mutated (JSON's punctuation,
 * escapes, digits, control bytes, every kind of bad UTF-8), and on random bytes. Each try is a
 * seed: a failure names its value.
 */
class EventScannerProperties {
  private static final ObjectReader TREE = Json.reader()
      .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private final EventValidator validator = new EventValidator();

  @Property(tries = 3000, seed = "20261129")
  void generatedEventsGetTheParsersReading(@ForAll long seed) {
    check(new Values(new Random(seed)).event());
  }

  @Property(tries = 6000, seed = "20261129")
  void mutatedEventsGetTheParsersReading(@ForAll long seed) {
    Random random = new Random(seed);
    Values values = new Values(random);
    check(values.mutate(values.event()));
  }

  @Property(tries = 1000, seed = "20261129")
  void randomBytesGetTheParsersReading(@ForAll long seed) {
    Random random = new Random(seed);
    byte[] value = new byte[random.nextInt(40)];
    random.nextBytes(value);
    check(value);
  }

  @Example
  void theUsualEventIsScannedNotHandedOn() {
    for (String json : List.of(
        "{\"id\":\"e1\",\"tenant\":\"t-1\",\"provider\":\"bench-api\",\"cost\":1,\"payload\":{\"t\":\"t-1\",\"sent\":123}}",
        "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":3,\"deadline\":\"2030-01-01T00:00:00Z\","
            + "\"path\":\"a/b\",\"attributes\":{\"X-A\":\"1\"},\"payload\":[1,-0.5e3,{\"b\":null,\"s\":\"\\u00e9\\n\"}],"
            + "\"other\":{},\"list\":[],\"flag\":true}",
        " {\r\n\t\"tenant\" : \"t\" , \"id\":\"e\",\"provider\":\"p\",\"payload\":\"caf\u00e9 \uD83D\uDE00\"} \n")) {
      byte[] value = json.getBytes(StandardCharsets.UTF_8);
      assertNotNull(EventScanner.fields(value), json);
      check(value);
    }
  }

  @Example
  void theScansBoundsHandTheValueOnAndTheVerdictStaysTheParsers() {
    String head = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":";
    List<String> payloads = new ArrayList<>();
    for (int depth : new int[] {EventScanner.MAX_DEPTH - 2, EventScanner.MAX_DEPTH - 1, EventScanner.MAX_DEPTH, 999, 1001}) {
      payloads.add("[".repeat(depth) + "]".repeat(depth));
      payloads.add("{\"a\":".repeat(depth) + "1" + "}".repeat(depth));
    }
    for (int names : new int[] {EventScanner.MAX_NAMES - 1, EventScanner.MAX_NAMES, EventScanner.MAX_NAMES + 1}) {
      StringBuilder object = new StringBuilder("{");
      for (int k = 0; k < names; k++) {
        object.append(k == 0 ? "" : ",").append("\"k").append(k).append("\":").append(k);
      }
      payloads.add(object.append('}').toString());
      payloads.add(object.deleteCharAt(object.length() - 1).append(",\"k3\":0}").toString());
    }
    for (int length : new int[] {EventScanner.MAX_NAME, EventScanner.MAX_NAME + 1, 50_001}) {
      payloads.add("{\"" + "n".repeat(length) + "\":1}");
    }
    for (int length : new int[] {EventScanner.MAX_NUMBER, EventScanner.MAX_NUMBER + 1, 1001}) {
      payloads.add("1" + "0".repeat(length - 1));
    }
    for (String payload : payloads) {
      check((head + payload + "}").getBytes(StandardCharsets.UTF_8));
    }
    assertNotNull(EventScanner.fields((head + payloads.get(0) + "}").getBytes(StandardCharsets.UTF_8)));
  }

  /** The scan agrees with the tree reading on {@code value}, and the verdict is the tree reading's. */
  private void check(byte[] value) {
    String shown = new String(value, StandardCharsets.UTF_8) + " (" + HexFormat.of().formatHex(value) + ")";
    EventValidator.Fields scanned = EventScanner.fields(value);
    if (scanned != null) {
      JsonNode root;
      try {
        root = TREE.readTree(value);
      } catch (JacksonException e) {
        fail("scanned a value the parser refuses (" + e.getOriginalMessage() + "): " + shown);
        return;
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      EventValidator.Fields tree = EventValidator.Fields.of(root);
      assertEquals(describe(tree), describe(scanned), shown);
      EventValidator.Fields streamed = EventValidator.streamed(value);
      if (streamed != null) {
        assertEquals(describe(streamed), describe(scanned), shown);
      }
    }
    LeavingPayloadTest.assertSameVerdict(validator, value, validator.validate(value));
  }

  private static String describe(EventValidator.Fields f) {
    return Arrays.asList(f.id, f.tenant, f.provider, f.cost, f.deadline, f.path, f.attributes).toString()
        + Arrays.asList(kind(f.id), kind(f.tenant), kind(f.provider), kind(f.cost), kind(f.deadline),
            kind(f.path), kind(f.attributes));
  }

  private static String kind(JsonNode node) {
    return node == null ? "absent" : node.getNodeType() + "/" + node.numberType();
  }

  /** Values built from one seed. */
  static final class Values {
    private static final String[] RULE_FIELDS = {"id", "tenant", "provider", "cost", "deadline", "path", "attributes"};
    private static final String[] STRINGS = {
        "e1", "t-1", "bench-api", "", " ", "a b", "caf\u00e9", "\uD83D\uDE00", "x".repeat(129), "2030-01-01T00:00:00Z",
        "2030-02-30T00:00:00Z", "a/b?c=d", "../x", "%zz", "X-A", "t:1.2_3", "\u007f", "\u2028"};
    private static final String[] ESCAPED = {
        "\\n", "\\\"", "\\\\", "\\/", "\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\t", "\\b", "\\f", "\\r"};
    private static final String[] NUMBERS = {
        "0", "1", "-1", "-0", "7", "123456789", "999999999", "1234567890", "2147483647", "2147483648", "-2147483648",
        "3000000000", "2.0", "1.5", "1e3", "1E+3", "1e-3", "-0.0", "0.5", "1e999999", "9".repeat(99), "9".repeat(101)};
    private static final String[] WS = {"", "", "", " ", "\n", "\r\n", "\t", "  "};
    /** Bytes a mutation writes: JSON's punctuation and escapes, digits, controls and bad UTF-8. */
    private static final int[] BYTES = {
        '{', '}', '[', ']', ',', ':', '"', '\\', ' ', '\t', '\n', '0', '1', '9', '-', '+', '.', 'e', 'E', 't', 'n',
        'f', 'u', 'a', 'x', '/', '#', 0x00, 0x01, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed,
        0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x8f, 0x90};

    /** Inserted into a string (ISO-8859-1 chars as bytes): controls, escapes good and bad, bad UTF-8. */
    private static final String[] STRING_BYTES = {
        "\u0000", "\u0001", "\n", "\t", "\u001f", "\u007f", "\\", "\\x", "\\u12", "\\u12g4", "\\uD800", "\\'",
        "\\n", "\\/", "\u0080", "\u00bf", "\u00c0\u0080", "\u00c1\u00bf", "\u00c2\u0080", "\u00c3", "\u00e0\u0080\u0080",
        "\u00e0\u00a0\u0080", "\u00ed\u00a0\u0080", "\u00ed\u009f\u00bf", "\u00ef\u00bf\u00bf", "\u00f0\u0080\u0080\u0080",
        "\u00f0\u0090\u0080\u0080", "\u00f4\u008f\u00bf\u00bf", "\u00f4\u0090\u0080\u0080", "\u00f5\u0080\u0080\u0080",
        "\u00e2\u0082", "\u00ff", "\""};
    /** Inserted before or after a digit. */
    private static final String[] NUMBER_BYTES = {"0", "1", ".", "e", "E", "-", "+", ".5", "e1", "e+", "00", " ", "x"};

    private final Random random;
    /** Half the events are plain (no escape in a name or a rule field, integer costs): most get scanned. */
    private final boolean plain;

    Values(Random random) {
      this.random = random;
      this.plain = random.nextBoolean();
    }

    byte[] event() {
      StringBuilder json = new StringBuilder(ws()).append('{');
      List<String> members = new ArrayList<>();
      for (String field : RULE_FIELDS) {
        if (random.nextInt(field.equals("id") || field.equals("tenant") || field.equals("provider") ? 8 : 2) != 0) {
          members.add(member(field, ruleValue(field)));
        }
      }
      if (random.nextInt(4) != 0) {
        members.add(member("payload", value(0)));
      }
      for (int k = random.nextInt(3); k > 0; k--) {
        members.add(member(name(), value(0)));
      }
      if (random.nextInt(10) == 0 && !members.isEmpty()) {
        members.add(members.get(random.nextInt(members.size()))); // a repeated name
      }
      java.util.Collections.shuffle(members, random);
      json.append(String.join("," + ws(), members)).append('}').append(ws());
      return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A few mutations: anywhere, into a string (right after a quote), or into a number. */
    byte[] mutate(byte[] value) {
      byte[] v = value;
      for (int m = 1 + (random.nextBoolean() ? 0 : random.nextInt(3)); m > 0 && v.length > 0; m--) {
        v = switch (random.nextInt(3)) {
          case 0 -> insert(v, after(v, '"') + (random.nextBoolean() ? 0 : random.nextInt(3)),
              STRING_BYTES[random.nextInt(STRING_BYTES.length)]);
          case 1 -> insert(v, random.nextBoolean() ? after(v, '0') : after(v, '0') - 1,
              NUMBER_BYTES[random.nextInt(NUMBER_BYTES.length)]);
          default -> anywhere(v);
        };
      }
      return v;
    }

    /**
     * Just after a random digit ({@code c} '0'), or a random quote that opens a string value
     * ({@code c} '"': after ':' or '['), or anywhere when there is none.
     */
    private int after(byte[] v, char c) {
      List<Integer> at = new ArrayList<>();
      byte before = 0;
      for (int k = 0; k < v.length; k++) {
        if (c == '0' ? v[k] >= '0' && v[k] <= '9' : v[k] == c && (before == ':' || before == '[')) {
          at.add(k + 1);
        }
        if (v[k] != ' ' && v[k] != '\n' && v[k] != '\r' && v[k] != '\t') {
          before = v[k];
        }
      }
      return at.isEmpty() ? random.nextInt(v.length + 1) : at.get(random.nextInt(at.size()));
    }

    private static byte[] insert(byte[] v, int at, String bytes) {
      byte[] in = bytes.getBytes(StandardCharsets.ISO_8859_1);
      int k = Math.max(0, Math.min(at, v.length));
      byte[] out = new byte[v.length + in.length];
      System.arraycopy(v, 0, out, 0, k);
      System.arraycopy(in, 0, out, k, in.length);
      System.arraycopy(v, k, out, k + in.length, v.length - k);
      return out;
    }

    private byte[] anywhere(byte[] v) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int at = random.nextInt(v.length);
      switch (random.nextInt(5)) {
        case 0 -> { // delete
          out.write(v, 0, at);
          out.write(v, at + 1, v.length - at - 1);
        }
        case 1 -> { // insert
          out.write(v, 0, at);
          out.write(BYTES[random.nextInt(BYTES.length)]);
          out.write(v, at, v.length - at);
        }
        case 2 -> { // replace
          out.write(v, 0, at);
          out.write(BYTES[random.nextInt(BYTES.length)]);
          out.write(v, at + 1, v.length - at - 1);
        }
        case 3 -> out.write(v, 0, at); // truncate
        default -> { // repeat a slice
          int len = Math.min(v.length - at, 1 + random.nextInt(12));
          out.write(v, 0, at + len);
          out.write(v, at, v.length - at);
        }
      }
      return out.toByteArray();
    }

    private String member(String name, String value) {
      return quoted(name) + ws() + ':' + ws() + value;
    }

    private String ruleValue(String field) {
      int pick = random.nextInt(10);
      if (pick == 0) {
        return "null";
      }
      if (pick == 1 && !plain) {
        return value(1);
      }
      return switch (field) {
        case "cost" -> plain ? NUMBERS[random.nextInt(8)] : random.nextBoolean() ? NUMBERS[random.nextInt(NUMBERS.length)] : string();
        case "attributes" -> {
          List<String> members = new ArrayList<>();
          for (int k = random.nextInt(4); k > 0; k--) {
            members.add(member(random.nextBoolean() ? "X-" + random.nextInt(3) : name(),
                random.nextInt(6) == 0 ? value(1) : string()));
          }
          yield "{" + String.join(",", members) + "}";
        }
        default -> string();
      };
    }

    private String value(int depth) {
      int pick = random.nextInt(depth > 3 ? 5 : 8);
      return switch (pick) {
        case 0 -> string(3);
        case 1 -> NUMBERS[random.nextInt(NUMBERS.length)];
        case 2 -> "true";
        case 3 -> "false";
        case 4 -> "null";
        case 5, 6 -> {
          List<String> members = new ArrayList<>();
          for (int k = random.nextInt(5); k > 0; k--) {
            members.add(member(name(), value(depth + 1)));
          }
          yield "{" + ws() + String.join("," + ws(), members) + ws() + "}";
        }
        default -> {
          List<String> items = new ArrayList<>();
          for (int k = random.nextInt(5); k > 0; k--) {
            items.add(value(depth + 1));
          }
          yield "[" + String.join("," + ws(), items) + "]";
        }
      };
    }

    private String name() {
      return random.nextInt(5) == 0 ? RULE_FIELDS[random.nextInt(RULE_FIELDS.length)]
          : !plain && random.nextInt(8) == 0 ? "k" + ESCAPED[random.nextInt(ESCAPED.length)] : "k" + random.nextInt(6);
    }

    private String string() {
      return string(plain ? 0 : 5);
    }

    /** A string, with an escape one time in {@code escapes} (0: none). */
    private String string(int escapes) {
      StringBuilder s = new StringBuilder(STRINGS[random.nextInt(STRINGS.length)]);
      if (escapes > 0 && random.nextInt(escapes) == 0) {
        s.insert(random.nextInt(s.length() + 1), ESCAPED[random.nextInt(ESCAPED.length)]);
      }
      return '"' + s.toString() + '"';
    }

    private static String quoted(String name) {
      return '"' + name + '"';
    }

    private String ws() {
      return WS[random.nextInt(WS.length)];
    }
  }
}
