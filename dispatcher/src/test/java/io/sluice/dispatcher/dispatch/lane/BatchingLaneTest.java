package io.sluice.dispatcher.dispatch.lane;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.BatchRule;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A lane whose provider takes batches ({@code batch: {maxEvents: 100}}), on a fake clock at 10
 * calls a second: one slot, one call of many events; each event settled with its own result; a
 * retry carries only the events that failed; a 429 pauses the lane once.
 */
class BatchingLaneTest {
  private static final BatchRule HUNDRED = new BatchRule(100, BatchRule.DEFAULT_BYTES, Duration.ZERO);

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final ManualTimer timer = new ManualTimer(clock);
  private final PublishingLeak leak = new PublishingLeak(
      new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
      (member, busyByTier) -> CompletableFuture.completedFuture(busyByTier));
  /** Every call the provider got, in order. */
  private final List<ProviderCall> calls = new ArrayList<>();
  /** How the provider answers a call; 200 to all by default. */
  private Function<ProviderCall, ProviderResult> answer =
      call -> new ProviderResult.Answered(200, null, ResponseHeaders.NONE);
  /** Each event's own result, as the lane handed it to be settled, by event id (and attempt). */
  private final Map<String, Integer> settled = new LinkedHashMap<>();
  private final List<String> expired = new ArrayList<>();
  private final List<Long> throttles = new ArrayList<>();
  private final List<String> wasted = new ArrayList<>();
  /** What the settler does with an event whose own status is not 2xx: as the ladder brings it back. */
  private boolean retryFailed;
  private Predicate<DispatchEntry> pastDeadline = e -> false;
  private ProviderLane lane;

  @BeforeEach
  void open() {
    lane = lane(HUNDRED);
  }

  private ProviderLane lane(BatchRule rule) {
    ProviderLane opened = new ProviderLane(
        new ProviderLane.Settings(LaneId.provider("api"), 60_000_000, 4, 100_000,
            Map.of("std", 1.0), 1_000),
        new ProviderLane.Calls(LimitSource.fixed(ProviderLimits.rateOnly(10)), this::call, leak),
        new LaneHooks(timer, (laneId, entry, result, claimedAtMicros) -> {
          int status = ((ProviderResult.Answered) result).status();
          settled.put(entry.event().id() + "#" + (entry.attempts() + 1), status);
          if (status == 429) {
            // As the dispatcher's settler does: a 429 pauses the lane for its Retry-After.
            return Settlement.of(List.of(new LaneOrder.Throttle(1_000, claimedAtMicros)), List::of);
          }
          if (status / 100 != 2 && retryFailed) {
            timer.execute(() -> this.lane.offer(again(entry)));
          }
          return Settlement.NONE;
        }, new DispatchListener() {
          @Override
          public void slotWasted(String provider, String reason) {
            wasted.add(reason);
          }

          @Override
          public void throttled(String provider, long retryAfterMillis) {
            throttles.add(retryAfterMillis);
          }
        }, (entry, why) -> { }, clock::nanos, Pace.FULL));
    opened.expireWith(e -> pastDeadline.test(e), e -> expired.add(e.event().id()));
    opened.batchWith(rule);
    return opened;
  }

  private CompletionStage<ProviderResult> call(ProviderCall call) {
    calls.add(call);
    return CompletableFuture.completedFuture(answer.apply(call));
  }

  private static DispatchEntry entry(String id) {
    return entry(id, null, null);
  }

  private static DispatchEntry entry(String id, String orderingKey, Instant deadline) {
    String json = "{\"id\":\"" + id + "\",\"payload\":{\"n\":\"" + id + "\"}}";
    return new DispatchEntry(new TopicPartition("ready", 0), 0, 1, "t".getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(),
        new WorkEvent(id, "t", "api", 1, deadline, null, null, Map.of(), null, null, orderingKey),
        "std", 0, null);
  }

  /** {@code e} back from the ladder after a failure: one attempt more. */
  private static DispatchEntry again(DispatchEntry e) {
    return new DispatchEntry(e.partition(), e.offset() + 1000, e.generation(), e.key(), e.value(),
        e.headers(), e.event(), e.tier(), e.attempts() + 1, e.firstSeen());
  }

  @Test
  @DisplayName("250 queued events go in three calls of 100, 100 and 50, each body the array of their payloads")
  void shouldSendManyEventsInOneCall() {
    for (int i = 0; i < 250; i++) {
      lane.offer(entry("e" + i));
    }
    timer.advance(Duration.ofSeconds(2));

    assertEquals(List.of(100, 100, 50), calls.stream().map(c -> c.batchIds().size()).toList());
    assertEquals(250, settled.size(), "each event its own settlement");
    ProviderCall first = calls.get(0);
    assertTrue(new String(first.body(), UTF_8).startsWith("[{\"n\":\"e0\"},{\"n\":\"e1\"},"),
        new String(first.body(), UTF_8).substring(0, 40));
    assertEquals(100, first.cost(), "the call's cost is the sum of its events'");
    assertTrue(first.eventId().startsWith("batch-"), first.eventId());
  }

  @Test
  @DisplayName("each event takes its own status where the answer lists it, the call's otherwise")
  void shouldSettleEachEventWithItsOwnStatus() {
    answer = call -> new ProviderResult.Answered(200, null, ResponseHeaders.NONE, 5, null,
        Map.of("a", 200, "b", 500, "c", 400));
    for (String id : List.of("a", "b", "c", "d")) {
      lane.offer(entry(id));
    }
    timer.advance(Duration.ofMillis(500));

    assertEquals(1, calls.size());
    assertEquals(Map.of("a#1", 200, "b#1", 500, "c#1", 400, "d#1", 200), settled);
  }

  @Test
  @DisplayName("a partly failed batch is retried with its failed events only, under another key")
  void shouldRetryOnlyTheFailedEvents() {
    retryFailed = true;
    answer = call -> new ProviderResult.Answered(200, null, ResponseHeaders.NONE, 5, null,
        call.batchIds().contains("b") && call.attempt() == 1 ? Map.of("b", 503) : Map.of());
    for (String id : List.of("a", "b", "c")) {
      lane.offer(entry(id));
    }
    timer.advance(Duration.ofSeconds(1));

    assertEquals(List.of(List.of("a", "b", "c"), List.of("b")),
        calls.stream().map(ProviderCall::batchIds).toList());
    assertEquals(Map.of("a#1", 200, "b#1", 503, "c#1", 200, "b#2", 200), settled);
    assertNotEquals(calls.get(0).eventId(), calls.get(1).eventId());
  }

  @Test
  @DisplayName("a 429 to a batch pauses the lane once, not once per event")
  void shouldPauseOncePerBatch() {
    answer = call -> new ProviderResult.Answered(429, "1", ResponseHeaders.NONE);
    for (int i = 0; i < 50; i++) {
      lane.offer(entry("e" + i));
    }
    timer.advance(Duration.ofMillis(500));

    assertEquals(1, calls.size());
    assertEquals(50, settled.size(), "every event its own outcome (each a 429)");
    assertEquals(List.of(1_000L), throttles);
  }

  @Test
  @DisplayName("an event the answer lists as 429 is retried but pauses nothing: the call was accepted")
  void shouldNotPauseForAnEventsOwn429() {
    answer = call -> new ProviderResult.Answered(200, null, ResponseHeaders.NONE, 5, null,
        Map.of("b", 429));
    for (String id : List.of("a", "b", "c")) {
      lane.offer(entry(id));
    }
    timer.advance(Duration.ofMillis(500));

    assertEquals(Map.of("a#1", 200, "b#1", 429, "c#1", 200), settled);
    assertEquals(List.of(), throttles);
  }

  @Test
  @DisplayName("an event past its deadline is taken out as the batch fills, never sent")
  void shouldExpireAnEventPastItsDeadlineInsideABatch() {
    Instant past = Instant.ofEpochMilli(1);
    pastDeadline = e -> e.event().deadline() != null;
    lane.offer(entry("a"));
    lane.offer(entry("late", null, past));
    lane.offer(entry("b"));
    timer.advance(Duration.ofMillis(500));

    assertEquals(List.of(List.of("a", "b")), calls.stream().map(ProviderCall::batchIds).toList());
    assertEquals(List.of("late"), expired);
  }

  @Test
  @DisplayName("at most one event of an ordering key in a batch: the key's next goes in a later call")
  void shouldKeepOneEventPerOrderingKeyInABatch() {
    lane.offer(entry("k1", "k", null));
    lane.offer(entry("x", null, null));
    lane.offer(entry("k2", "k", null));
    timer.advance(Duration.ofMillis(500));

    assertEquals(List.of(List.of("k1", "x"), List.of("k2")),
        calls.stream().map(ProviderCall::batchIds).toList());
  }

  @Test
  @DisplayName("with maxWait, a slot finding a partial batch goes unused until maxWait after the last call")
  void shouldLetAPartialBatchFillForMaxWait() {
    lane = lane(new BatchRule(100, BatchRule.DEFAULT_BYTES, Duration.ofMillis(300)));
    lane.offer(entry("a"));
    timer.advance(Duration.ofMillis(50));
    lane.offer(entry("b"));
    timer.advance(Duration.ofMillis(150));
    lane.offer(entry("c"));
    timer.advance(Duration.ofMillis(1_000));

    assertEquals(List.of(List.of("a"), List.of("b", "c")),
        calls.stream().map(ProviderCall::batchIds).toList());
    assertTrue(wasted.contains("filling"), wasted.toString());
  }
}
