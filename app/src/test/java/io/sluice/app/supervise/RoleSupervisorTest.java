package io.sluice.app.supervise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.SluiceMetrics;
import io.sluice.app.ops.MetricNames;
import io.sluice.app.ops.RoleStatus;
import io.sluice.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A role whose loop throws is closed and started again, and the process gives up (an injected
 * exit) when that happens more often than the policy allows. The roles here are loops on threads
 * of their own, as the relay's and the dispatcher's are, fed jobs by the test.
 */
class RoleSupervisorTest {
  private static final Duration WITHIN = Duration.ofSeconds(10);

  private final MetricRegistry registry = new MetricRegistry();
  private final SluiceMetrics metrics = new SluiceMetrics(registry);
  private final BlockingQueue<String> jobs = new LinkedBlockingQueue<>();
  /** Jobs done, as "job by instance n". */
  private final List<String> done = new CopyOnWriteArrayList<>();
  private final List<Integer> exits = new CopyOnWriteArrayList<>();
  private final List<Loop> started = new CopyOnWriteArrayList<>();
  private final AtomicInteger instances = new AtomicInteger();
  private RoleSupervisor<Loop> supervisor;

  @AfterEach
  void stop() {
    if (supervisor != null) {
      supervisor.close();
    }
  }

  /** A role's loop: takes jobs and does them; the job "boom" throws out of it, as a fatal error does. */
  private final class Loop implements AutoCloseable {
    final int instance = instances.incrementAndGet();
    final Thread thread;
    volatile boolean closed;

    Loop() {
      thread = new Thread(() -> {
        try {
          while (!closed) {
            String job = jobs.take();
            if (job.equals("boom")) {
              throw new IllegalStateException("offset 7 read after 9");
            }
            done.add(job + " by " + instance);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "loop-" + instance);
      thread.start();
      started.add(this);
    }

    boolean running() {
      return thread.isAlive();
    }

    @Override
    public void close() {
      closed = true;
      thread.interrupt();
    }
  }

  private Supervision supervision(RestartPolicy policy) {
    return new Supervision(policy, Duration.ofMillis(10), System::currentTimeMillis, exits::add);
  }

  private RoleSupervisor<Loop> supervise(Supplier<Loop> start, RestartPolicy policy) {
    supervisor = new RoleSupervisor<>("relay", start, Loop::running,
        () -> metrics.roleRestarted("relay"), supervision(policy));
    return supervisor;
  }

  private long restartsCounted() {
    return registry.counter(MetricNames.name("sluice_role_restarts", "role", "relay")).getCount();
  }

  @Test
  @DisplayName("a role whose loop throws is closed, started again with a new instance, counted, and goes on working")
  void restartsADeadLoop() {
    supervise(Loop::new, new RestartPolicy(3, Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO));
    jobs.add("a");
    Await.until("the first instance works", WITHIN, () -> done.contains("a by 1"));

    jobs.add("boom");
    Await.until("a second instance", WITHIN, () -> supervisor.restarts() == 1);
    assertEquals(1, restartsCounted(), "sluice_role_restarts_total{role=relay}");
    assertTrue(started.get(0).closed, "the dead instance was closed (its clients released)");
    jobs.add("b");
    Await.until("the work goes on", WITHIN, () -> done.contains("b by 2"));
    assertEquals(List.of(), exits);
    assertEquals(RoleStatus.healthy("RUNNING"), supervisor.status(l -> RoleStatus.healthy("RUNNING")));
  }

  @Test
  @DisplayName("a role that fails more often than the policy allows makes the process exit with a non-zero code")
  void givesUpAndExits() {
    supervise(Loop::new, new RestartPolicy(2, Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO));
    for (int failure = 1; failure <= 3; failure++) {
      int before = instances.get();
      jobs.add("boom");
      if (failure < 3) {
        Await.until("restart " + failure, WITHIN, () -> instances.get() == before + 1);
      }
    }
    Await.until("the exit", WITHIN, () -> !exits.isEmpty());
    assertEquals(List.of(Supervision.EXIT_ROLE_FAILED), exits);
    assertTrue(Supervision.EXIT_ROLE_FAILED != 0);
    assertEquals(2, restartsCounted());
    assertEquals(3, instances.get(), "no fourth start");
    assertNull(supervisor.current());
    RoleStatus status = supervisor.status(l -> RoleStatus.healthy("RUNNING"));
    assertFalse(status.live(), status.toString());
    assertTrue(status.state().startsWith("FAILED"), status.state());
  }

  @Test
  @DisplayName("a start that throws counts as a failure and is tried again after the backoff")
  void failedStartTriedAgain() {
    AtomicInteger starts = new AtomicInteger();
    supervise(() -> {
      if (starts.incrementAndGet() == 2) {
        throw new IllegalStateException("broker away");
      }
      return new Loop();
    }, new RestartPolicy(3, Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO));
    jobs.add("boom");
    Await.until("started at the third try", WITHIN, () -> supervisor.restarts() == 1);
    assertEquals(3, starts.get());
    jobs.add("c");
    Await.until("the work goes on", WITHIN, () -> done.contains("c by 2"));
    assertEquals(List.of(), exits);
  }
}
