package io.sluice.app.simulate;

import java.util.Arrays;

/**
 * The simulation's timed steps in the order they fall due: a binary min-heap on (time, order
 * added), its keys in primitive arrays, so a step costs no object of its own and no comparator
 * call (a {@code PriorityQueue} of records was a tenth of a day's simulation).
 *
 * <p>Steps due at the same microsecond come out in the order they were added. Grows with its
 * largest size (the backlog of reserved and queued events), never shrinks. Not thread-safe.
 */
final class Timeline<T> {
  private long[] at = new long[1024];
  private long[] order = new long[1024];
  private int[] kinds = new int[1024];
  private Object[] items = new Object[1024];
  private int size;
  private long added;

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /** When the first step falls due; only when not empty. */
  long firstAt() {
    return at[0];
  }

  /** The first step's kind; only when not empty. */
  int firstKind() {
    return kinds[0];
  }

  /** The first step's item; only when not empty. */
  @SuppressWarnings("unchecked")
  T firstItem() {
    return (T) items[0];
  }

  void add(long atMicros, int kind, T item) {
    if (size == at.length) {
      int n = size * 2;
      at = Arrays.copyOf(at, n);
      order = Arrays.copyOf(order, n);
      kinds = Arrays.copyOf(kinds, n);
      items = Arrays.copyOf(items, n);
    }
    long o = added++;
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(atMicros, o, at[parent], order[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    put(i, atMicros, o, kind, item);
  }

  /** Drops the first step (read it first with {@link #firstAt}, {@link #firstKind}, {@link #firstItem}). */
  void removeFirst() {
    int last = --size;
    long a = at[last];
    long o = order[last];
    int k = kinds[last];
    Object item = items[last];
    items[last] = null;
    if (last == 0) {
      return;
    }
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < last && before(at[right], order[right], at[child], order[child])) {
        child = right;
      }
      if (!before(at[child], order[child], a, o)) {
        break;
      }
      move(child, i);
      i = child;
    }
    put(i, a, o, k, item);
  }

  private static boolean before(long at1, long order1, long at2, long order2) {
    return at1 < at2 || (at1 == at2 && order1 < order2);
  }

  private void move(int from, int to) {
    at[to] = at[from];
    order[to] = order[from];
    kinds[to] = kinds[from];
    items[to] = items[from];
  }

  private void put(int i, long a, long o, int k, Object item) {
    at[i] = a;
    order[i] = o;
    kinds[i] = k;
    items[i] = item;
  }
}
