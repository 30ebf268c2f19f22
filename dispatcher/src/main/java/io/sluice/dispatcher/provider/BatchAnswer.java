package io.sluice.dispatcher.provider;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a provider's answer to a batch says of each event, where it says it: a JSON object whose
 * {@code results} lists items {@code {"id": "<event id>", "status": <HTTP status>}}. Read as a
 * hostile answer is: at most {@link #MAX_BYTES} of the body are kept ({@link HttpProvider}), a
 * body that is not such an object (cut short, too deep, another shape) says nothing of any event;
 * at most {@link #MAX_ITEMS} items are read; an item whose id is not one of the batch's, whose
 * status is not a whole number from 100 to 599, or whose id came before, is ignored. Other fields
 * are skipped. An event the answer does not list takes the call's own status.
 */
public final class BatchAnswer {
  /** Body bytes kept of a batch's answer to read its results from. */
  public static final int MAX_BYTES = 256 * 1024;
  /** Items read at most: a batch holds at most 1000 events. */
  public static final int MAX_ITEMS = 1000;
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16)
          .maxStringLength(4096).maxNumberLength(16).build())
      .build();

  private BatchAnswer() {}

  /** Each listed event's status, by id; empty when the body lists none it can be believed on. */
  public static Map<String, Integer> statuses(byte[] body, Set<String> ids) {
    Map<String, Integer> found = new HashMap<>();
    if (body == null || body.length == 0) {
      return Map.of();
    }
    try (JsonParser p = FACTORY.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return Map.of();
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!"results".equals(field) || value != JsonToken.START_ARRAY) {
          p.skipChildren();
          continue;
        }
        int read = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          if (++read > MAX_ITEMS) {
            return Map.copyOf(found);
          }
          item(p, ids, found);
        }
      }
      return Map.copyOf(found);
    } catch (IOException | RuntimeException e) {
      return Map.of(); // not the documented shape, or cut short: the call's status for every event
    }
  }

  /** Reads one item (the parser at its first token), keeping it if it names an event of the batch. */
  private static void item(JsonParser p, Set<String> ids, Map<String, Integer> found)
      throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    String id = null;
    Integer status = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken value = p.nextToken();
      if ("id".equals(field) && value == JsonToken.VALUE_STRING) {
        id = p.getText();
      } else if ("status".equals(field) && value == JsonToken.VALUE_NUMBER_INT) {
        long s = p.getLongValue();
        status = s >= 100 && s <= 599 ? (int) s : null;
      } else {
        p.skipChildren();
      }
    }
    if (id != null && status != null && ids.contains(id)) {
      found.putIfAbsent(id, status);
    }
  }
}
