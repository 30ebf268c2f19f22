package io.sluice.gate;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The gate's step for an event that asked for a time, on its first sight ({@code inbound}): due
 * now, it goes on to its quota; not yet, it waits round the ladder unpaid
 * ({@code sluice-reason: scheduled}, {@code sluice-paid: false}, not-before its time) and returns
 * to the gate on {@code regate}, where it is charged like any event and never scheduled again
 * (the relay let it out at its time); too far ahead, or after its own deadline, it is
 * dead-lettered. {@link DeliveryTime} decides; this routes.
 */
final class ScheduleStep {
  private final Clock redisClock;
  private final Clock clock;
  private final GateListener listener;
  private final DelayLadder ladder;
  private final Map<Duration, String> delaySinks = new HashMap<>();
  private final byte[] toRegate;
  private final byte[] scheduled = OutgoingHeaders.encoded(Reason.SCHEDULED.code());
  private ProcessorContext<byte[], Object> context;

  /**
   * @param redisClock a lower bound of Redis's clock (the relay's): judges when an event is due
   * @param clock      the gate's clock, for the first-seen time and dead letters, as the other steps
   */
  ScheduleStep(Topics topics, DelayLadder ladder, Clock redisClock, Clock clock, GateListener listener) {
    this.redisClock = redisClock;
    this.clock = clock;
    this.listener = listener;
    this.ladder = ladder;
    this.toRegate = OutgoingHeaders.encoded(topics.regate());
    ladder.steps().forEach(step -> delaySinks.put(step, GateNodes.delaySink(step)));
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /** When the event may go on to its quota, judged now on Redis's clock. */
  DeliveryTime.Verdict verdict(WorkEvent event, SluiceConfig config) {
    if (!event.scheduled()) {
      return DeliveryTime.DUE;
    }
    String provider = event.provider();
    return DeliveryTime.of(event, provider, config.providers().get(provider).intake().maxDelay(),
        redisClock.millis());
  }

  /** What the gate does with an event of this verdict, as a repeat of it is told ({@link DedupMark}). */
  static String status(DeliveryTime.Verdict verdict) {
    return verdict instanceof DeliveryTime.Later ? DedupMark.SCHEDULED : DedupMark.ACCEPTED;
  }

  /**
   * True when the event goes on to its quota now; false when it was sent to wait or
   * dead-lettered, as {@code verdict} says.
   */
  boolean dueNow(Record<byte[], byte[]> record, WorkEvent event, String tier, DeliveryTime.Verdict verdict) {
    String provider = event.provider();
    if (verdict instanceof DeliveryTime.Later later) {
      long now = redisClock.millis();
      listener.deferred(provider, tier, Reason.SCHEDULED, false);
      long notBefore = later.notBeforeMillis();
      Headers headers = OutgoingHeaders.deferred(record.headers(), OutgoingHeaders.encoded(tier),
          OutgoingHeaders.decimal(clock.millis()), notBefore, toRegate, scheduled, false, -1);
      context.forward(new Record<>(record.key(), (Object) record.value(), now, headers),
          delaySinks.get(ladder.stepFor(notBefore - now)));
      return false;
    }
    if (verdict instanceof DeliveryTime.Refused refused) {
      listener.dead(refused.reason());
      context.forward(DeadLetters.of(record, event, record.value(), refused.reason(), refused.detail(),
          event.id(), context, clock.millis()), GateNodes.DLQ_SINK);
      return false;
    }
    return true;
  }
}
