package io.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.sluice.testkit.SpecTable.Implementation;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/** The harness itself, run in a nested engine over a table of three rows and two implementations. */
class SpecTableTest {
  /** What the nested runs did, in order. */
  static final List<String> LOG = new ArrayList<>();

  @Test
  @DisplayName("names each test '<row> on <implementation>', with the difference an implementation states")
  void shouldNameEachRowOnEachImplementation() {
    Events tests = run();
    assertEquals(List.of(
        "#0 one on sound", "#1 two on sound", "#2 three on sound",
        "#0 one on broken at two", "#1 two on broken at two", "#2 three on broken at two (differs: it counts in threes)"),
        tests.started().map(e -> e.getTestDescriptor().getDisplayName()).toList());
  }

  @Test
  @DisplayName("carries one run from row to row, aborts the rows after a failure, and closes the run after the last")
  void shouldAbortTheRowsAfterAFailureAndCloseTheRun() {
    Events tests = run();
    tests.assertStatistics(s -> s.started(6).succeeded(4).failed(1).aborted(1));
    Event failed = tests.failed().list().get(0);
    assertEquals("#1 two on broken at two", failed.getTestDescriptor().getDisplayName());
    assertEquals(List.of("start sound", "sound 0", "sound 1", "sound 2", "close sound",
        "start broken", "broken 0", "broken 1", "close broken"), LOG,
        "one start and one close per implementation; nothing run after the failing row");
  }

  private static Events run() {
    LOG.clear();
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(Sample.class)).execute().testEvents();
  }

  /** Not run by Surefire on its own (nested class); run by the tests above. */
  static class Sample {
    @TestFactory
    Stream<DynamicContainer> table() {
      return SpecTable.of(List.of("one", "two", "three"), row -> row).over(
          new Implementation<>("sound", () -> logging("sound", -1)),
          new Implementation<>("broken at two", () -> logging("broken", 1),
              row -> row.equals("three") ? "it counts in threes" : null));
    }

    private static SpecTable.Run<String> logging(String name, int failAt) {
      LOG.add("start " + name);
      return new SpecTable.Run<>() {
        @Override
        public void step(int index, String row) {
          LOG.add(name + " " + index);
          assertEquals(-1, failAt == index ? index : -1, "fails here");
        }

        @Override
        public void close() {
          LOG.add("close " + name);
        }
      };
    }
  }
}
