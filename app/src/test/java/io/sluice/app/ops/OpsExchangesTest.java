package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ops port's executor past its cap (issue 33), exchanges stood in for by runnables that block
 * as the JDK's server does while it reads a request head, under a read deadline far away, so
 * that only the cap decides.
 */
class OpsExchangesTest {
  private final OpsExchanges exchanges = new OpsExchanges(Duration.ofMinutes(5));
  private final CountDownLatch never = new CountDownLatch(1);
  private final List<Integer> cut = new CopyOnWriteArrayList<>();
  private final CountDownLatch aCut = new CountDownLatch(1);

  @AfterEach
  void close() {
    never.countDown();
    exchanges.close();
  }

  /** Exchange {@code n}: reads its head forever (until interrupted, as a cut socket is). */
  private Runnable reading(int n, CountDownLatch started) {
    return () -> {
      started.countDown();
      try {
        never.await();
      } catch (InterruptedException e) {
        cut.add(n);
        aCut.countDown();
      }
    };
  }

  @Test
  @DisplayName("past the cap a new exchange cuts the one reading longest and runs at once")
  void pastTheCapTheLongestReaderIsCut() throws Exception {
    // Before: the new exchange was refused (its socket closed) until a reader reached the read
    // deadline, so an attacker reopening trickling sockets kept probes out (tools/outside/
    // attacks.sh: 400 trickling sockets, /live answered 6 of 25).
    CountDownLatch started = new CountDownLatch(OpsExchanges.MAX_EXCHANGES);
    for (int n = 0; n < OpsExchanges.MAX_EXCHANGES; n++) {
      exchanges.execute(reading(n, started));
    }
    assertTrue(started.await(10, TimeUnit.SECONDS), "every reader running");
    CountDownLatch probed = new CountDownLatch(1);

    exchanges.execute(probed::countDown);

    assertTrue(probed.await(1, TimeUnit.SECONDS), "the probe ran within 1 s");
    assertTrue(aCut.await(1, TimeUnit.SECONDS), "a reader was cut");
    assertEquals(List.of(0), cut, "the first reader, and only it, was cut");
  }
}
