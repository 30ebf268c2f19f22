package io.sluice.app.supervise;

import io.sluice.app.ops.RoleStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one role running: asks it every {@link Supervision#checkEvery()} whether its loop still
 * runs, and when it does not (the relay after a fatal producer error, a loop that threw) closes
 * it, which closes its Kafka and Redis clients, and starts a new one with new clients after the
 * {@link RestartPolicy}'s backoff. A start that throws counts as a failure too. When the policy
 * gives up, the process exits with {@link Supervision#EXIT_ROLE_FAILED}.
 *
 * <p>What a restart costs: the new instance joins its consumer group as a new member, so its
 * partitions move as after a crash (the relay's commits and ledgers, the dispatcher's settled
 * offsets and delivered log carry what was done: nothing is lost, calls in flight at the failure
 * may be made again, as after a SIGKILL).
 *
 * <p>One daemon thread per role does the checks, the closes and the starts; {@link #current()}
 * and {@link #status(Function)} may be read from any thread.
 *
 * @param <R> the running role; closing it stops its loop and releases its clients
 */
public final class RoleSupervisor<R extends AutoCloseable> implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RoleSupervisor.class);

  private final String role;
  private final Supplier<R> starter;
  private final Predicate<R> running;
  private final Runnable restarted;
  private final Supervision supervision;
  private final ScheduledExecutorService checker;
  /** The failures within the policy's window, oldest first (supervisor thread only). */
  private final List<Long> failures = new ArrayList<>();
  private final AtomicLong restarts = new AtomicLong();
  private volatile R current;
  /** What {@link #status} says while no instance runs: restarting, or failed for good. */
  private volatile RoleStatus waiting = RoleStatus.unhealthy("STARTING");
  private volatile boolean closed;
  private long restartAt;

  /**
   * Starts the role on the caller's thread (a role that cannot start at all throws here, as an
   * unsupervised one did), then watches it.
   *
   * @param role      its name in logs and {@code /health}
   * @param starter   starts a new instance with new clients
   * @param running   whether an instance's loop still runs
   * @param restarted told after each restart (the metric)
   */
  public RoleSupervisor(String role, Supplier<R> starter, Predicate<R> running, Runnable restarted,
      Supervision supervision) {
    this.role = role;
    this.starter = starter;
    this.running = running;
    this.restarted = restarted;
    this.supervision = supervision;
    this.current = starter.get();
    this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-supervisor-" + role);
      t.setDaemon(true);
      return t;
    });
    long every = supervision.checkEvery().toMillis();
    checker.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  /** The instance running now; null while one is waiting to be restarted. */
  public R current() {
    return current;
  }

  /** Restarts so far. */
  public long restarts() {
    return restarts.get();
  }

  /**
   * The role's state for {@code /ready} and {@code /live}: {@code instanceStatus} of the running
   * instance, or {@code RESTARTING} (not ready, live) with the failures counted and when the next
   * start is due, or {@code FAILED} (neither) once the policy gave up.
   */
  public RoleStatus status(Function<R, RoleStatus> instanceStatus) {
    R now = current;
    if (now == null) {
      return waiting;
    }
    return instanceStatus.apply(now);
  }

  private void check() {
    if (closed) {
      return;
    }
    try {
      R now = current;
      long time = supervision.millis().getAsLong();
      if (now == null) {
        if (time >= restartAt) {
          restart(time);
        }
      } else if (!running.test(now)) {
        LOG.error("sluice: the {}'s loop stopped (the log above says why); closing its clients",
            role);
        closeQuietly(now);
        current = null;
        failed(time);
      }
    } catch (RuntimeException e) {
      LOG.error("sluice: supervising the {} failed", role, e); // the next check tries again
    }
  }

  private void restart(long time) {
    R started;
    try {
      started = starter.get();
    } catch (RuntimeException e) {
      LOG.error("sluice: starting the {} again failed ({})", role, e.toString());
      failed(time);
      return;
    }
    if (closed) { // closed while it started: nothing may outlive close
      closeQuietly(started);
      return;
    }
    current = started;
    restarts.incrementAndGet();
    restarted.run();
    LOG.warn("sluice: the {} started again (restart {})", role, restarts.get());
  }

  private void failed(long time) {
    failures.add(time);
    failures.removeIf(t -> t <= time - supervision.policy().window().toMillis());
    RestartPolicy.Decision decision = supervision.policy().decide(failures, time);
    if (decision instanceof RestartPolicy.Restart r) {
      restartAt = time + r.waitMillis();
      waiting = RoleStatus.unhealthy("RESTARTING (failure " + r.failures() + " of at most "
          + supervision.policy().maxRestarts() + " within " + supervision.policy().window()
          + "; next start in " + r.waitMillis() + " ms)");
      LOG.warn("sluice: the {} is started again in {} ms (failure {} within {})", role,
          r.waitMillis(), r.failures(), supervision.policy().window());
      return;
    }
    int count = ((RestartPolicy.GiveUp) decision).failures();
    waiting = RoleStatus.failed("FAILED (" + count + " failures within "
        + supervision.policy().window() + ")");
    closed = true;
    LOG.error("sluice: the {} failed {} times within {}; exiting with code {} so that the "
        + "process is restarted", role, count, supervision.policy().window(),
        Supervision.EXIT_ROLE_FAILED);
    supervision.exit().accept(Supervision.EXIT_ROLE_FAILED);
  }

  private void closeQuietly(R instance) {
    try {
      instance.close();
    } catch (Exception e) {
      LOG.warn("sluice: closing the stopped {} failed ({})", role, e.toString());
    }
  }

  /** Stops watching, then closes the running instance (if any). */
  @Override
  public void close() {
    closed = true;
    checker.shutdown();
    try {
      if (!checker.awaitTermination(60, TimeUnit.SECONDS)) {
        checker.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    R now = current;
    current = null;
    if (now != null) {
      closeQuietly(now);
    }
  }
}
