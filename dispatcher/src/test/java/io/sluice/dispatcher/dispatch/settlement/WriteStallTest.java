package io.sluice.dispatcher.dispatch.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WriteStallTest {
  private static final long NOW = TimeUnit.SECONDS.toNanos(1_000);

  private static long millisAgo(long millis) {
    return NOW - TimeUnit.MILLISECONDS.toNanos(millis);
  }

  @Test
  void shouldLetCallsGoWhenEverySettlementIsAcknowledged() {
    // Nothing outstanding: whatever the oldest says, it is no one's.
    assertEquals(Optional.empty(), WriteStall.why(NOW, millisAgo(60_000), 0));
  }

  @Test
  void shouldLetCallsGoWhileTheOldestUnacknowledgedIsYoungerThanTheBound() {
    // Acknowledgements flowing: a linger and a round trip, tens of ms.
    assertEquals(Optional.empty(), WriteStall.why(NOW, millisAgo(50), 40));
    assertEquals(Optional.empty(), WriteStall.why(NOW, millisAgo(WriteStall.OLDEST_MILLIS), 40));
  }

  @Test
  void shouldMakeCallsWaitOnceTheOldestUnacknowledgedIsOlderThanTheBound() {
    // The broker away: one settlement left unacknowledged past 2 s stops the calls.
    Optional<String> why = WriteStall.why(NOW, millisAgo(WriteStall.OLDEST_MILLIS + 1), 1);
    assertTrue(why.isPresent());
    assertEquals("1 settlements unacknowledged by Kafka, the oldest for 2001 ms (more than 2000 ms)",
        why.get());
  }

  @Test
  void shouldMakeCallsWaitWhenTooManyAreUnacknowledgedHoweverYoung() {
    Optional<String> why = WriteStall.why(NOW, millisAgo(10), WriteStall.MOST + 1);
    assertEquals(Optional.of("5001 settlements unacknowledged by Kafka (more than 5000)"), why);
    assertEquals(Optional.empty(), WriteStall.why(NOW, millisAgo(10), WriteStall.MOST));
  }

  @Test
  void shouldLetCallsGoAgainAsSoonAsTheBacklogIsAcknowledged() {
    // The broker back: the 2 s old settlements acknowledged, the oldest left is 30 ms old.
    assertTrue(WriteStall.why(NOW, millisAgo(9_000), 800).isPresent());
    assertEquals(Optional.empty(), WriteStall.why(NOW, millisAgo(30), 12));
  }
}
