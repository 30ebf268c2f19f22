package io.sluice.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.TestAbortedException;

/**
 * One specification table, written once, run over every implementation of its contract: the Java
 * math, the Lua script on a standalone Redis and on a cluster, the local fallback. A
 * {@code @TestFactory} returns {@link #over}: one container per implementation, one dynamic test
 * per row, named {@code "<row> on <implementation>"}, so a report says which row broke where.
 *
 * <p>The rows of a table are a timeline: each implementation starts fresh ({@link
 * Implementation#start}) and carries its state from row to row, in order. The rows run back to
 * back, as one loop, when the implementation's first row is reached; each row's test then reports
 * that row's outcome. (A table on Redis's clock keeps its decisions a few milliseconds of real
 * time from an edge; the engine's own work between two tests, milliseconds on a loaded machine,
 * would eat that.) Once a row fails, the implementation's later rows do not run and their tests
 * are aborted (the state they would start from is not the table's), not failed again.
 *
 * <p>An implementation that rightly decides a row otherwise (a local fallback at its share, a
 * state that cannot be lost) says so in the table, as the row's expected difference for that
 * implementation; {@link Implementation#differs} names it, and the test's name carries it
 * ({@code "... on LocalBuckets (differs: ...)"}). Nothing is skipped silently.
 *
 * @param <R> the table's row
 */
public final class SpecTable<R> {
  private final List<R> rows;
  private final Function<R, String> why;

  private SpecTable(List<R> rows, Function<R, String> why) {
    this.rows = List.copyOf(rows);
    this.why = why;
  }

  /** A table of {@code rows}, each described by {@code why} (what the row shows). */
  public static <R> SpecTable<R> of(List<R> rows, Function<R, String> why) {
    return new SpecTable<>(rows, why);
  }

  /** One implementation's run of the table: its state, carried from row to row. */
  public interface Run<R> extends AutoCloseable {
    /** Performs row {@code index} and asserts its expectations (or the row's difference here). */
    void step(int index, R row) throws Throwable;

    @Override
    default void close() throws Exception {}
  }

  /** Starts a fresh run (a new bucket, a new key, a new server when it needs one). */
  @FunctionalInterface
  public interface Start<R> {
    Run<R> start() throws Throwable;
  }

  /**
   * An implementation of the contract.
   *
   * @param name    as it appears in test names
   * @param start   a fresh run of the table
   * @param differs for a row, why this implementation is expected to answer it otherwise than the
   *                table's main columns; null where it answers as they say
   */
  public record Implementation<R>(String name, Start<R> start, Function<R, String> differs) {
    public Implementation(String name, Start<R> start) {
      this(name, start, row -> null);
    }
  }

  /** One container per implementation, one test per row, in the table's order. */
  @SafeVarargs
  public final Stream<DynamicContainer> over(Implementation<R>... implementations) {
    return over(List.of(implementations));
  }

  /** The same for a list of implementations. */
  public Stream<DynamicContainer> over(List<Implementation<R>> implementations) {
    return implementations.stream().map(this::containerFor);
  }

  private DynamicContainer containerFor(Implementation<R> implementation) {
    Progress progress = new Progress(implementation);
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      int index = i;
      R row = rows.get(i);
      String differs = implementation.differs().apply(row);
      String name = "#" + index + " " + why.apply(row) + " on " + implementation.name()
          + (differs == null ? "" : " (differs: " + differs + ")");
      tests.add(DynamicTest.dynamicTest(name, () -> progress.report(name, index)));
    }
    return DynamicContainer.dynamicContainer(implementation.name(), tests);
  }

  /** An implementation's run: every row back to back at the first row's test, then each row's outcome. */
  private final class Progress {
    private final Implementation<R> implementation;
    private final List<Throwable> outcomes = new ArrayList<>();
    private boolean ran;

    Progress(Implementation<R> implementation) {
      this.implementation = implementation;
    }

    void report(String name, int index) throws Throwable {
      if (!ran) {
        ran = true;
        runAll();
      }
      if (index >= outcomes.size()) {
        throw new TestAbortedException("row #" + (outcomes.size() - 1) + " failed on " + implementation.name()
            + ": the state this row starts from is not the table's");
      }
      Throwable failure = outcomes.get(index);
      if (failure != null) {
        // The row and the implementation in the message: a report may name a dynamic test by its
        // position only.
        AssertionError named = new AssertionError(name + ": " + failure.getMessage(), failure);
        named.setStackTrace(failure.getStackTrace());
        throw named;
      }
    }

    /**
     * Runs the rows in order until one fails (its failure the last outcome), then closes the run;
     * a failure to close is the last row's that ran.
     */
    private void runAll() {
      Run<R> run;
      try {
        run = implementation.start().start();
      } catch (Throwable e) {
        outcomes.add(e);
        return;
      }
      try {
        for (int i = 0; i < rows.size(); i++) {
          run.step(i, rows.get(i));
          outcomes.add(null);
        }
      } catch (Throwable e) {
        outcomes.add(e);
      } finally {
        try {
          run.close();
        } catch (Throwable e) {
          int last = outcomes.size() - 1;
          if (outcomes.get(last) == null) {
            outcomes.set(last, e);
          } else {
            outcomes.get(last).addSuppressed(e);
          }
        }
      }
    }
  }
}
