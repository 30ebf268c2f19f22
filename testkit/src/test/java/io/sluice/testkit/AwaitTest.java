package io.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AwaitTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  @Test
  @DisplayName("returns the first observed value the condition accepts")
  void returnsAcceptedValue() {
    AtomicInteger n = new AtomicInteger();
    assertEquals(3, Await.until("three", LONG, n::incrementAndGet, v -> v == 3));
    assertEquals(6, Await.untilRead("six", LONG, n::incrementAndGet, v -> v == 6));
  }

  @Test
  @DisplayName("a timeout says what was awaited and the last value observed")
  void timeoutNamesWhatAndLastValue() {
    AtomicInteger n = new AtomicInteger();
    AssertionError e = assertThrows(AssertionError.class,
        () -> Await.until("the count to reach 1000", Duration.ZERO, n::incrementAndGet, v -> v >= 1000));
    assertTrue(e.getMessage().contains("waiting for the count to reach 1000"), e.getMessage());
    assertTrue(e.getMessage().endsWith("last observed: " + n.get()), e.getMessage());
  }

  @Test
  @DisplayName("a boolean condition that never holds fails naming it")
  void booleanTimeout() {
    AssertionError e = assertThrows(AssertionError.class, () -> Await.until("never", Duration.ZERO, () -> false));
    assertTrue(e.getMessage().contains("waiting for never; last observed: false"), e.getMessage());
  }

  @Test
  @DisplayName("atMost returns what was read at the deadline instead of failing")
  void readAtMostReturnsLastValue() {
    List<Integer> read = new ArrayList<>();
    List<Integer> last = Await.atMost(Duration.ZERO, () -> {
      read.add(read.size());
      return read;
    }, all -> all.size() > 1_000_000);
    assertTrue(!last.isEmpty() && last.size() < 1_000_000);
  }

  @Test
  @DisplayName("a long observed collection is described by its size and cut short")
  void describesLongCollections() {
    List<Integer> many = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      many.add(i);
    }
    String text = Await.describe(many);
    assertTrue(text.startsWith("10000 items [0, 1, 2"), text);
    assertTrue(text.length() < Await.DESCRIBED_CHARS + 30, text);
  }
}
