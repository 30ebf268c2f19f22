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
import org.junit.jupiter.api.extension.DynamicTestInvocationContext;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
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
  @DisplayName("runs one implementation's rows back to back at its first row's test, stops at a failure, closes the run, and reports each row in its own test")
  void shouldRunTheRowsBackToBackAndReportEachRow() {
    Events tests = run();
    tests.assertStatistics(s -> s.started(6).succeeded(4).failed(1).aborted(1));
    Event failed = tests.failed().list().get(0);
    assertEquals("#1 two on broken at two", failed.getTestDescriptor().getDisplayName());
    assertEquals(List.of(
        "test #0", "start sound", "sound 0", "sound 1", "sound 2", "close sound", "test #1", "test #2",
        "test #0", "start broken", "broken 0", "broken 1", "close broken", "test #1", "test #2"), LOG,
        "no engine work between two rows; nothing run after the failing row");
  }

  @Test
  @DisplayName("a run that fails to close (a check after its last row) fails the last row")
  void shouldFailTheLastRowWhenTheRunFailsToClose() {
    LOG.clear();
    Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(FailsToClose.class)).execute().testEvents();
    tests.assertStatistics(s -> s.started(2).succeeded(1).failed(1));
    assertEquals("#1 two on unclosable", tests.failed().list().get(0).getTestDescriptor().getDisplayName());
  }

  private static Events run() {
    LOG.clear();
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(Sample.class)).execute().testEvents();
  }

  /** Not run by Surefire on its own (nested class); run by the test above. */
  static class FailsToClose {
    @TestFactory
    Stream<DynamicContainer> table() {
      return SpecTable.of(List.of("one", "two"), row -> row).over(new Implementation<>("unclosable", () -> new SpecTable.Run<String>() {
        @Override
        public void step(int index, String row) {}

        @Override
        public void close() {
          throw new AssertionError("a check after the last row");
        }
      }));
    }
  }

  /** Not run by Surefire on its own (nested class); run by the tests above. */
  @ExtendWith(LogsEachTest.class)
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

  /** Logs each dynamic test as the engine invokes it: "test #row". */
  static final class LogsEachTest implements InvocationInterceptor {
    @Override
    public void interceptDynamicTest(Invocation<Void> invocation, DynamicTestInvocationContext context,
        ExtensionContext extension) throws Throwable {
      LOG.add("test " + extension.getDisplayName().split(" ")[0]);
      invocation.proceed();
    }
  }
}
