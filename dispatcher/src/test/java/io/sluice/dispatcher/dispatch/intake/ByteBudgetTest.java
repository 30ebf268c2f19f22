package io.sluice.dispatcher.dispatch.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ByteBudgetTest {

  @Test
  @DisplayName("a record costs its key, value, headers and a fixed overhead")
  void sizeOfRecord() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("sluice-tier", "gold".getBytes(StandardCharsets.UTF_8));
    headers.add("empty", null);
    assertEquals(ByteBudget.RECORD_OVERHEAD + 3 + 1000 + 11 + 4 + 5,
        ByteBudget.sizeOf(new byte[3], new byte[1000], headers));
    assertEquals(ByteBudget.RECORD_OVERHEAD, ByteBudget.sizeOf(null, null, new RecordHeaders()));
  }

  @Test
  @DisplayName("each provider holds at most its share; the others keep theirs")
  void sharePerProvider() {
    ByteBudget b = new ByteBudget(1000, 2); // 500 each
    assertTrue(b.admits("a", 300));
    b.add("a", 300);
    assertTrue(b.admits("a", 200), "exactly the share");
    assertFalse(b.admits("a", 201), "beyond a's share: overflow");
    assertTrue(b.admits("b", 500), "b is not held up by a");
    b.add("a", 200);
    b.release("a", 300);
    assertEquals(200, b.used("a"));
    assertTrue(b.admits("a", 300), "room again once records settle");
  }

  @Test
  @DisplayName("an empty account admits any one record, so a record larger than the share still moves")
  void emptyAdmitsOversize() {
    ByteBudget b = new ByteBudget(1000, 4);
    assertTrue(b.admits("a", 5000));
    b.add("a", 5000);
    assertFalse(b.admits("a", 1));
    b.release("a", 5000);
    assertEquals(0, b.used("a"));
    assertEquals(0, b.total());
  }

  @Test
  @DisplayName("reading pauses above the whole budget and resumes at half of it")
  void pauseWithHysteresis() {
    ByteBudget b = new ByteBudget(1000, 1);
    b.add("a", 1000);
    assertFalse(b.shouldPause(false), "at the budget: keep reading");
    b.add("", 1); // a dead letter being written
    assertTrue(b.shouldPause(false), "past it: pause");
    b.release("a", 400);
    assertTrue(b.shouldPause(true), "601 bytes held: stay paused until half");
    b.release("a", 101);
    assertFalse(b.shouldPause(true), "500 held: resume");
    assertEquals(500, b.total());
  }
}
