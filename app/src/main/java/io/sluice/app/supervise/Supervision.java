package io.sluice.app.supervise;

import java.time.Duration;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * How an application supervises its roles, shared by every {@link RoleSupervisor}.
 *
 * @param policy     when a role is restarted and when the process gives up
 * @param checkEvery how often each role is asked whether its loop still runs
 * @param millis     the clock of the policy's window and backoff
 * @param exit       ends the process with a code ({@link #processExit()}; tests record the code)
 */
public record Supervision(RestartPolicy policy, Duration checkEvery, LongSupplier millis,
    IntConsumer exit) {

  /** The exit code of a process whose role failed more often than its policy allows. */
  public static final int EXIT_ROLE_FAILED = 70;

  /** The application's: {@link RestartPolicy#DEFAULT}, a check every second, the real exit. */
  public static Supervision standard() {
    return new Supervision(RestartPolicy.DEFAULT, Duration.ofSeconds(1),
        System::currentTimeMillis, processExit());
  }

  /**
   * {@link System#exit} on a thread of its own: the shutdown hooks it runs close the application,
   * which waits for the supervisor's thread, so that thread must not be the one blocked in exit.
   */
  public static IntConsumer processExit() {
    return code -> {
      Thread exit = new Thread(() -> System.exit(code), "sluice-exit");
      exit.start();
    };
  }
}
