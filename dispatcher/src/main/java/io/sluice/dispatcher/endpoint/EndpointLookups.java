package io.sluice.dispatcher.endpoint;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Name lookups for tenants' endpoints, bounded in time and kept apart per host, so that one
 * tenant's slow resolver cannot delay another tenant's call.
 *
 * <p>Before this, every endpoint's lookup queued on one pool of 4 threads with no time limit: four
 * calls toward a name whose resolver never answers held all four threads, and every other
 * tenant's call waited behind them ({@code EndpointLookupsTest} shows it on such a pool). Now:
 * <ul>
 *   <li><b>one lookup at a time per host</b>: concurrent calls toward the same name share the
 *       lookup in flight, so a hanging name holds one thread, however many of its calls
 *       wait;</li>
 *   <li><b>a thread per host being looked up</b>, at most {@link #MAX_THREADS}: another host's
 *       lookup never queues behind a hanging one ({@code InetAddress} cannot be interrupted, so a
 *       hanging lookup keeps its thread until the system resolver gives up; past the cap a
 *       lookup is refused at once, a connection error for that call only);</li>
 *   <li><b>a deadline</b> ({@link #TIMEOUT} by default): a call waits at most that long for its
 *       answer, then fails as a connection error, counted toward disabling its endpoint.</li>
 * </ul>
 */
public final class EndpointLookups {
  /** How long a call waits for its endpoint's name. */
  public static final Duration TIMEOUT = Duration.ofSeconds(2);
  /** Hosts looked up at once. */
  static final int MAX_THREADS = 64;

  private static final EndpointLookups SYSTEM = new EndpointLookups(GuardedEndpoint.Resolver.SYSTEM, TIMEOUT);

  private final GuardedEndpoint.Resolver resolver;
  private final Duration timeout;
  private final Map<String, CompletableFuture<List<InetAddress>>> inFlight = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor threads;

  public EndpointLookups(GuardedEndpoint.Resolver resolver, Duration timeout) {
    this.resolver = resolver;
    this.timeout = timeout;
    AtomicInteger made = new AtomicInteger();
    this.threads = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "sluice-endpoint-lookup-" + made.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** A lookup not made, or not answered in time: not an answer that the name does not exist. */
  public static final class NoAnswer extends UnknownHostException {
    NoAnswer(String why) {
      super(why);
    }
  }

  /** The process's lookups through the JVM's resolver. */
  public static EndpointLookups system() {
    return SYSTEM;
  }

  /**
   * Every address {@code host} has now, within the deadline.
   *
   * <p>Fails with {@link UnknownHostException} when the name does not resolve, and with
   * {@link NoAnswer} when its lookup outlasts the deadline or too many hosts are being looked up
   * at once (the message says which).
   */
  public CompletableFuture<List<InetAddress>> resolve(String host) {
    CompletableFuture<List<InetAddress>> mine = new CompletableFuture<>();
    CompletableFuture<List<InetAddress>> shared = inFlight.putIfAbsent(host, mine);
    if (shared == null) {
      shared = mine;
      try {
        threads.execute(() -> {
          // Out of the map before it completes: a call arriving after the answer asks again,
          // never reusing an answer that may be stale (rebinding is exactly a changed answer).
          List<InetAddress> answer = null;
          Exception failure = null;
          try {
            answer = resolver.resolve(host);
          } catch (UnknownHostException | RuntimeException e) {
            failure = e;
          }
          inFlight.remove(host, mine);
          if (failure == null) {
            mine.complete(answer);
          } else {
            mine.completeExceptionally(failure);
          }
        });
      } catch (RejectedExecutionException e) {
        inFlight.remove(host, mine);
        mine.completeExceptionally(new NoAnswer(MAX_THREADS
            + " hosts are being looked up at once; not looked up"));
      }
    }
    // Each caller's own deadline: a copy, so one caller's timeout does not fail the shared lookup.
    return shared.thenApply(a -> a).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(e -> {
          Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
          if (cause instanceof TimeoutException) {
            return CompletableFuture.failedFuture(new NoAnswer("no answer from the resolver within "
                + timeout.toMillis() + " ms"));
          }
          return CompletableFuture.failedFuture(cause);
        });
  }
}
