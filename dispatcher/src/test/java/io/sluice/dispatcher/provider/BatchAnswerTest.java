package io.sluice.dispatcher.provider;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** What a batch's answer says of each event: the documented shape believed, anything else ignored. */
class BatchAnswerTest {
  private static final Set<String> IDS = Set.of("a", "b");

  private record Row(String why, String body, Map<String, Integer> statuses) {}

  private static final List<Row> TABLE = List.of(
      new Row("each listed event's status", "{\"results\":[{\"id\":\"a\",\"status\":200},{\"id\":\"b\",\"status\":429}]}",
          Map.of("a", 200, "b", 429)),
      new Row("other fields, before and inside, are skipped",
          "{\"batch\":{\"x\":[1,2]},\"results\":[{\"status\":500,\"error\":{\"m\":\"x\"},\"id\":\"b\"}]}",
          Map.of("b", 500)),
      new Row("an id not of the batch is ignored", "{\"results\":[{\"id\":\"zz\",\"status\":500}]}", Map.of()),
      new Row("the first status of a repeated id counts", "{\"results\":[{\"id\":\"a\",\"status\":500},{\"id\":\"a\",\"status\":200}]}",
          Map.of("a", 500)),
      new Row("a status outside 100..599, or not a whole number, is ignored",
          "{\"results\":[{\"id\":\"a\",\"status\":99},{\"id\":\"b\",\"status\":\"200\"}]}", Map.of()),
      new Row("a status too long to be a number is ignored (the body with it)",
          "{\"results\":[{\"id\":\"a\",\"status\":12345678901234567890123}]}", Map.of()),
      new Row("not JSON: nothing", "OK", Map.of()),
      new Row("an array, not an object: nothing", "[{\"id\":\"a\",\"status\":200}]", Map.of()),
      new Row("a body cut short says nothing, not even its first items",
          "{\"results\":[{\"id\":\"a\",\"status\":200},{\"id\":\"b\",\"sta", Map.of()),
      new Row("a body nested deeper than 16 says nothing",
          "{\"x\":" + "[".repeat(40) + "]".repeat(40) + ",\"results\":[{\"id\":\"a\",\"status\":200}]}",
          Map.of()),
      new Row("an empty body: nothing", "", Map.of()));

  @TestFactory
  Stream<DynamicTest> readsWhatTheTableSays() {
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < TABLE.size(); i++) {
      Row row = TABLE.get(i);
      tests.add(dynamicTest("#" + (i + 1) + " " + row.why(), () -> assertEquals(row.statuses(),
          BatchAnswer.statuses(row.body().getBytes(UTF_8), IDS))));
    }
    return tests.stream();
  }

  @Test
  void shouldReadAtMostMaxItems() {
    StringBuilder body = new StringBuilder("{\"results\":[");
    for (int i = 0; i < BatchAnswer.MAX_ITEMS; i++) {
      body.append("{\"id\":\"x").append(i).append("\",\"status\":200},");
    }
    body.append("{\"id\":\"a\",\"status\":500}]}");

    assertEquals(Map.of(), BatchAnswer.statuses(body.toString().getBytes(UTF_8), IDS),
        "the item after the first 1000 is not read");
  }

  @Test
  void shouldKeyABatchByItsSetOfEvents() {
    assertEquals(BatchBody.key(List.of("a", "b")), BatchBody.key(List.of("b", "a")));
    assertEquals(false, BatchBody.key(List.of("a", "b")).equals(BatchBody.key(List.of("a"))));
    assertEquals(false, BatchBody.key(List.of("a\nb")).equals(BatchBody.key(List.of("a", "b"))),
        "no id forges another set's boundary");
  }
}
