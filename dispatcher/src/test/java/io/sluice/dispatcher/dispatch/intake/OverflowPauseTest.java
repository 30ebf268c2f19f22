package io.sluice.dispatcher.dispatch.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OverflowPauseTest {
  private static final long SECOND = 1_000_000_000L;
  private static final int BUFFER = 1000;

  private final Map<String, Integer> queued = new HashMap<>(Map.of("api", BUFFER, "mail", 0));
  private final OverflowPause<String> pause = new OverflowPause<>(3, SECOND);

  private Set<String> pausedAt(long nanos) {
    return pause.paused(nanos, queued::get, BUFFER / 2);
  }

  @Test
  @DisplayName("a partition is paused once a streak of its arrivals all met a full buffer, not before")
  void pausesAfterAStreakOfSelfOverflows() {
    pause.overflowed("p0", "api", 0);
    pause.overflowed("p0", "api", 1);
    assertEquals(Set.of(), pausedAt(2), "two of three");
    pause.overflowed("p0", "api", 3);
    assertEquals(Set.of("p0"), pausedAt(4));
    assertEquals(Set.of("p0"), pausedAt(5), "stays paused while the lane is full");
  }

  @Test
  @DisplayName("an arrival queued without pushing anything out breaks the streak")
  void aQueuedArrivalBreaksTheStreak() {
    pause.overflowed("p0", "api", 0);
    pause.overflowed("p0", "api", 0);
    pause.queued("p0");
    pause.overflowed("p0", "api", 0);
    pause.overflowed("p0", "api", 0);
    assertEquals(Set.of(), pausedAt(1), "the buffer had room again");
  }

  @Test
  @DisplayName("only the partition that brought nothing but overflow is paused; others read on")
  void pausesPartitionsNotTheConsumer() {
    for (int i = 0; i < 3; i++) {
      pause.overflowed("p0", "api", 0);
    }
    pause.overflowed("p1", "api", 0);
    pause.queued("p2");
    assertEquals(Set.of("p0"), pausedAt(1));
  }

  @Test
  @DisplayName("reading resumes once the lane it overflowed from has drained to half its buffer")
  void resumesWhenTheLaneHasRoom() {
    for (int i = 0; i < 3; i++) {
      pause.overflowed("p0", "api", 0);
    }
    queued.put("api", BUFFER / 2 + 1);
    assertEquals(Set.of("p0"), pausedAt(10));
    queued.put("api", BUFFER / 2);
    assertEquals(Set.of(), pausedAt(11));
    pause.overflowed("p0", "api", 12);
    assertEquals(Set.of(), pausedAt(13), "a resumed partition starts a new streak");
  }

  @Test
  @DisplayName("reading resumes after the longest pause even if the lane is still full: "
      + "another provider's record behind the backlog waits no longer than an overflow would")
  void resumesAfterTheLongestPause() {
    for (int i = 0; i < 3; i++) {
      pause.overflowed("p0", "api", 100);
    }
    assertEquals(Set.of("p0"), pausedAt(100 + SECOND - 1));
    assertEquals(Set.of(), pausedAt(100 + SECOND));
  }

  @Test
  @DisplayName("a streak over several lanes resumes when any of them has room")
  void anyOfTheLanesWithRoomResumes() {
    queued.put("mail", BUFFER);
    pause.overflowed("p0", "api", 0);
    pause.overflowed("p0", "mail", 0);
    pause.overflowed("p0", "api", 0);
    assertEquals(Set.of("p0"), pausedAt(1));
    queued.put("mail", 10);
    assertEquals(Set.of(), pausedAt(2));
  }

  @Test
  @DisplayName("partitions revoked from this instance are forgotten")
  void forgetsRevokedPartitions() {
    for (int i = 0; i < 3; i++) {
      pause.overflowed("p0", "api", 0);
      pause.overflowed("p1", "api", 0);
    }
    pause.retainOnly(Set.of("p1"));
    assertEquals(Set.of("p1"), pausedAt(1));
  }

  @Test
  @DisplayName("a streak shorter than one, or a pause of no length, is refused")
  void refusesNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new OverflowPause<String>(0, SECOND));
    assertThrows(IllegalArgumentException.class, () -> new OverflowPause<String>(1, 0));
  }
}
