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
 * Implementation#start}) and carries its state from row to row, in order. Once a row fails, the
 * implementation's later rows are aborted (the state they would start from is not the table's),
 * not failed again.
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
    return Stream.of(implementations).map(this::containerFor);
  }

  private DynamicContainer containerFor(Implementation<R> implementation) {
    Progress<R> progress = new Progress<>(implementation);
    List<DynamicTest> tests = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      int index = i;
      R row = rows.get(i);
      String differs = implementation.differs().apply(row);
      String name = "#" + index + " " + why.apply(row) + " on " + implementation.name()
          + (differs == null ? "" : " (differs: " + differs + ")");
      tests.add(DynamicTest.dynamicTest(name, () -> progress.step(name, index, row, index == rows.size() - 1)));
    }
    return DynamicContainer.dynamicContainer(implementation.name(), tests);
  }

  /** An implementation's run as the rows reach it: started at the first, closed after the last. */
  private static final class Progress<R> {
    private final Implementation<R> implementation;
    private Run<R> run;
    private int failedAt = -1;

    Progress(Implementation<R> implementation) {
      this.implementation = implementation;
    }

    void step(String name, int index, R row, boolean last) throws Throwable {
      try {
        if (failedAt >= 0) {
          throw new TestAbortedException("row #" + failedAt + " failed on " + implementation.name()
              + ": the state this row starts from is not the table's");
        }
        if (run == null) {
          run = implementation.start().start();
        }
        run.step(index, row);
      } catch (TestAbortedException e) {
        throw e;
      } catch (Throwable e) {
        failedAt = index;
        // The row and the implementation in the message: a report may name a dynamic test by its
        // position only.
        AssertionError named = new AssertionError(name + ": " + e.getMessage(), e);
        named.setStackTrace(e.getStackTrace());
        throw named;
      } finally {
        if (last && run != null) {
          run.close();
        }
      }
    }
  }
}
