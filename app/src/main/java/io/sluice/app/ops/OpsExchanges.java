package io.sluice.app.ops;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads of the ops port, so that no client can hold it: the executor given to the JDK's
 * {@code HttpServer} and the {@link Filter} on each of its contexts.
 *
 * <ul>
 *   <li><b>A thread per exchange, at most {@link #MAX_EXCHANGES} at once.</b> The JDK's server
 *       reads a request's head on the executor's thread, blocking, so a fixed pool of a few
 *       threads is held by as many sockets that send one byte each. Here every exchange has its
 *       own thread (started on demand, gone after 30 s idle, small stacks), so a probe arriving
 *       beside 200 trickling sockets still gets one at once. A connection that sends nothing
 *       holds no thread (it waits in the server's selector, which closes it after 30 s).</li>
 *   <li><b>Past the cap, the longest reader makes room.</b> A new exchange arriving when
 *       {@link #MAX_EXCHANGES} are open cuts the one that has been reading its request longest
 *       (the likeliest slow loris) and runs at once; so an attacker reopening trickling sockets
 *       as fast as they are cut only cuts its own, and a probe, whose head is read at once, gets
 *       in (before, the new socket was refused until a reader reached the deadline: 400 such
 *       sockets kept /live out 19 times in 25). With none reading (every exchange handling), the
 *       new one is refused: the JDK server closes its connection. Threads of exchanges being
 *       cut may outlive the cut a moment: the pool allows twice the cap.</li>
 *   <li><b>A deadline for reading the request</b> ({@link #READ_DEADLINE}, {@link RequestReads}):
 *       an exchange still reading its request line, headers or body that long after it started
 *       has its thread interrupted, which closes its socket (a blocking {@code SocketChannel} is
 *       interruptible) and frees the thread. Handling time does not count.</li>
 * </ul>
 */
final class OpsExchanges implements Executor, AutoCloseable {
  /** Exchanges read or answered at once; above the 200 idle or trickling sockets a probe must outlast. */
  static final int MAX_EXCHANGES = 256;
  /** How long a client has to send its whole request (head and body) once its first byte came. */
  static final Duration READ_DEADLINE = Duration.ofSeconds(3);
  private static final long TICK_MILLIS = 100;
  /** A stack size hint: a probe's handler is shallow, and 256 default stacks would reserve 256 MiB. */
  private static final long STACK_BYTES = 512 * 1024;

  private final Object lock = new Object();
  private final RequestReads reads;
  private final Map<Long, Thread> threadOf = new HashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong cut = new AtomicLong();
  private final ThreadLocal<Long> current = new ThreadLocal<>();
  private final ThreadPoolExecutor threads;
  private final ScheduledExecutorService watchdog;

  OpsExchanges() {
    this(READ_DEADLINE);
  }

  OpsExchanges(Duration readDeadline) {
    this.reads = new RequestReads(readDeadline.toNanos());
    AtomicInteger count = new AtomicInteger();
    this.threads = new ThreadPoolExecutor(0, 2 * MAX_EXCHANGES, 30, TimeUnit.SECONDS,
        new SynchronousQueue<>(), runnable -> {
          Thread thread = new Thread(null, runnable, "sluice-ops-http-" + count.incrementAndGet(),
              STACK_BYTES);
          thread.setDaemon(true);
          return thread;
        });
    this.watchdog = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "sluice-ops-http-deadline");
      thread.setDaemon(true);
      return thread;
    });
    watchdog.scheduleWithFixedDelay(this::cutOverdue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs one exchange on a thread of its own, its request's deadline running from now (its first
   * byte has come). At {@link #MAX_EXCHANGES} open, cuts the one reading longest first; throws
   * {@link RejectedExecutionException} when none reads, on which the JDK server closes the
   * connection.
   */
  @Override
  public void execute(Runnable exchange) {
    long id = ids.incrementAndGet();
    synchronized (lock) {
      if (reads.open() >= MAX_EXCHANGES) {
        Long longest = reads.oldestReading().orElseThrow(() -> new RejectedExecutionException(
            MAX_EXCHANGES + " ops exchanges open, none reading its request"));
        cut(longest);
      }
      reads.started(id, System.nanoTime());
    }
    try {
      threads.execute(() -> run(id, exchange));
    } catch (RejectedExecutionException e) {
      synchronized (lock) {
        reads.ended(id);
      }
      throw e;
    }
  }

  private void run(long id, Runnable exchange) {
    synchronized (lock) {
      threadOf.put(id, Thread.currentThread());
    }
    current.set(id);
    try {
      exchange.run();
    } finally {
      synchronized (lock) {
        reads.ended(id);
        threadOf.remove(id);
      }
      current.remove();
      Thread.interrupted(); // a pooled thread must not carry a late interrupt to the next exchange
    }
  }

  /**
   * The filter every context runs first: the head has been read when it is entered; the body is
   * read under the same deadline.
   */
  Filter filter() {
    return new Filter() {
      @Override
      public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        reading(false);
        exchange.setStreams(new DeadlineBody(exchange.getRequestBody()), null);
        chain.doFilter(exchange);
      }

      @Override
      public String description() {
        return "the ops port's request-read deadline";
      }
    };
  }

  /** Exchanges whose socket was cut, since start: reading past the deadline, or the longest reader past the cap. */
  long cut() {
    return cut.get();
  }

  /** Exchanges being read or answered now. */
  int open() {
    synchronized (lock) {
      return reads.open();
    }
  }

  /**
   * Marks this thread's exchange reading or handling. Leaving a read clears an interrupt the
   * watchdog may have sent just as the read returned: the lock orders the two, so a handling
   * thread is never interrupted (its Redis or Kafka calls are not cut).
   */
  private void reading(boolean reading) {
    Long id = current.get();
    if (id == null) {
      return;
    }
    synchronized (lock) {
      reads.reading(id, reading);
      if (!reading) {
        Thread.interrupted();
      }
    }
  }

  private void cutOverdue() {
    synchronized (lock) {
      for (long id : reads.overdue(System.nanoTime())) {
        cut(id);
      }
    }
  }

  /** Cuts exchange {@code id}, reading: its thread interrupted closes its socket. Under the lock. */
  private void cut(long id) {
    reads.reading(id, false);
    Thread thread = threadOf.get(id);
    if (thread != null) {
      cut.incrementAndGet();
      thread.interrupt();
    }
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    threads.shutdownNow();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The request body, read under the deadline: reading while inside a read, handling otherwise. */
  private final class DeadlineBody extends FilterInputStream {
    DeadlineBody(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      reading(true);
      try {
        return super.read();
      } finally {
        reading(false);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      reading(true);
      try {
        return super.read(b, off, len);
      } finally {
        reading(false);
      }
    }
  }
}
