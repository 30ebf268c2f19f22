package io.sluice.dispatcher.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The order of one tenant's entries by class, arrival and aging, as a table: each row queues
 * entries {@code name:class@ms} (arrival in ms, in the order offered) with an aging of 10 s, and
 * names the order they are served in. Three implementations answer every row: the rule itself
 * (the entries sorted by {@link PriorityOrder#compare}), a {@link FairQueue} serving them
 * ({@code poll}), and a {@link FairQueue} evicting them ({@code removeLast}, the serving order
 * reversed).
 */
class PriorityOrderTest {
  private static final Duration AGING = Duration.ofSeconds(10);
  private static final long MS = 1_000_000L;

  /** One row: entries offered in this order, and the order they must be served in. */
  record Row(String why, String offered, String served) {
  }

  private static final List<Row> TABLE = List.of(
      new Row("one class is FIFO: events that name no class are served as before",
          "a:normal@0 b:normal@1 c:normal@2", "a b c"),
      new Row("a high event sent after a backlog of lows goes first",
          "l1:low@0 l2:low@1 l3:low@2 h:high@3", "h l1 l2 l3"),
      new Row("classes high, normal, low, then arrival within each",
          "l:low@0 n1:normal@1 h1:high@2 n2:normal@3 h2:high@4", "h1 h2 n1 n2 l"),
      new Row("a high arriving just under one aging after a normal goes before it",
          "n:normal@0 h:high@9999", "h n"),
      new Row("on equal turns the higher class goes first: a normal that waited one aging ties with a high arriving then",
          "n:normal@0 h:high@10000", "h n"),
      new Row("aging: a normal that waited longer than one aging goes before a high arriving then",
          "n:normal@0 h:high@10001", "n h"),
      new Row("aging: a low is overtaken by a high arriving up to two agings after it",
          "l:low@0 h:high@19999", "h l"),
      new Row("aging: a low that waited two agings goes before a high arriving then, not before one arriving earlier",
          "h1:high@15000 l:low@0 h2:high@20001", "h1 l h2"),
      new Row("aging counts one aging per class between: a low that waited one aging ties with a normal arriving then",
          "l:low@0 n:normal@10000 h:high@10000", "h n l"),
      new Row("an arrival offered late (an earlier instant after a later one of its class) keeps its place in the FIFO",
          "a:low@5 b:low@3 h:high@6", "h a b"));

  @TestFactory
  Stream<DynamicContainer> shouldServeOneTenantsEntriesByClassArrivalAndAging() {
    return SpecTable.of(TABLE, Row::why).over(
        new Implementation<>("the rule, sorted", () -> (i, row) ->
            assertEquals(names(row.served()), sortedByRule(row.offered()), row.why())),
        new Implementation<>("FairQueue.poll", () -> (i, row) -> {
          FairQueue<String> queue = queueOf(row.offered());
          List<String> served = new ArrayList<>();
          while (!queue.isEmpty()) {
            served.add(queue.poll().orElseThrow());
          }
          assertEquals(names(row.served()), served, row.why());
        }),
        new Implementation<>("FairQueue.removeLast, reversed", () -> (i, row) -> {
          FairQueue<String> queue = queueOf(row.offered());
          List<String> evicted = new ArrayList<>();
          while (!queue.isEmpty()) {
            evicted.add(0, queue.removeLast().orElseThrow());
          }
          assertEquals(names(row.served()), evicted, row.why());
        }));
  }

  @Test
  @DisplayName("lows are served once they have waited two agings, while highs arrive as fast as the tenant is served")
  void shouldServeALowBacklogUnderASteadyStreamOfHighs() {
    long aging = 100;
    FairQueue<String> queue = new FairQueue<>(Map.of("std", 1.0), 1000,
        new PriorityOrder(Duration.ofNanos(aging)));
    for (int i = 0; i < 5; i++) {
      queue.offer("std", "t", 1, 2, 0, "low" + i);
    }
    List<Long> lowServedAt = new ArrayList<>();
    for (long now = 1; now <= 400; now++) {
      queue.offer("std", "t", 1, 0, now, "high@" + now);
      String served = queue.poll().orElseThrow();
      if (served.startsWith("low")) {
        lowServedAt.add(now);
      }
    }
    // Before two agings (200) every high arriving overtakes the lows; from then on, the lows go
    // first, one a turn, and the highs wait behind them.
    assertEquals(List.of(201L, 202L, 203L, 204L, 205L), lowServedAt);
  }

  @Test
  @DisplayName("classes choose which of a tenant's entries goes, never how often the tenant is served")
  void shouldLeaveEveryTenantsShareAsItIs() {
    FairQueue<String> queue = new FairQueue<>(Map.of("std", 1.0), 1000, PriorityOrder.byDefault());
    for (int i = 0; i < 100; i++) {
      queue.offer("std", "mixed", 1, i % 3, i, "mixed");
      queue.offer("std", "plain", 1, 1, i, "plain");
    }
    int mixed = 0;
    for (int i = 0; i < 100; i++) {
      if (queue.poll().orElseThrow().equals("mixed")) {
        mixed++;
      }
    }
    assertEquals(50, mixed, "half of the calls each, as when neither names a class");
  }

  @Test
  @DisplayName("a turn past the clock's range saturates, and a non-positive aging or a negative rank is refused")
  void shouldSaturateAndRefuseNonsense() {
    PriorityOrder order = new PriorityOrder(Duration.ofDays(100_000));
    assertEquals(Long.MAX_VALUE, order.turn(2, Long.MAX_VALUE - 5));
    assertTrue(order.compare(2, Long.MAX_VALUE - 5, 0, Long.MAX_VALUE - 5) > 0,
        "the high still goes first");
    assertThrows(IllegalArgumentException.class, () -> new PriorityOrder(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> order.turn(-1, 0));
  }

  private static List<String> sortedByRule(String offered) {
    PriorityOrder order = new PriorityOrder(AGING);
    List<Offered> entries = parse(offered);
    // Stable: equal entries (one class, one instant) keep their order of arrival.
    entries.sort(Comparator.comparing(e -> e, (a, b) -> order.compare(a.rank, a.arrivedNanos,
        b.rank, b.arrivedNanos)));
    return entries.stream().map(Offered::name).toList();
  }

  private static FairQueue<String> queueOf(String offered) {
    FairQueue<String> queue = new FairQueue<>(Map.of("std", 1.0), 100, new PriorityOrder(AGING));
    for (Offered e : parse(offered)) {
      queue.offer("std", "t", 1, e.rank, e.arrivedNanos, e.name);
    }
    return queue;
  }

  private record Offered(String name, int rank, long arrivedNanos) {
  }

  /**
   * {@code name:class@ms ...}; an arrival earlier than the latest of its class counts as that
   * latest, as the queue keeps each class in arrival order.
   */
  private static List<Offered> parse(String offered) {
    List<Offered> entries = new ArrayList<>();
    long[] latest = new long[3];
    Arrays.fill(latest, Long.MIN_VALUE);
    for (String token : offered.split(" ")) {
      String name = token.substring(0, token.indexOf(':'));
      String cls = token.substring(token.indexOf(':') + 1, token.indexOf('@'));
      int rank = switch (cls) {
        case "high" -> 0;
        case "normal" -> 1;
        case "low" -> 2;
        default -> throw new IllegalArgumentException(cls);
      };
      long at = Long.parseLong(token.substring(token.indexOf('@') + 1)) * MS;
      latest[rank] = Math.max(latest[rank], at);
      entries.add(new Offered(name, rank, latest[rank]));
    }
    return entries;
  }

  private static List<String> names(String served) {
    return List.of(served.split(" "));
  }
}
