package io.sluice.gate;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.config.ProviderIntake;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.DuplicateOutcome;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.ReplayOf;
import io.sluice.gate.limiter.BucketKey;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The gate's step for a provider with a {@code dedupWindow}, on an event's first sight
 * ({@code inbound}): the first record of an id within the window goes on; another is not called
 * and gets an outcome {@code duplicate} naming the first ({@link DuplicateOutcome}, on
 * {@code sluice.outcomes}, with {@code sluice-outcome: duplicate}). Why a record read again after a
 * crash is not its own duplicate: {@link DedupMark}. A dead letter replayed by an operator
 * ({@link ReplayOf}) is called again. An id is remembered per (provider, tenant):
 * two tenants' ids never collide.
 */
final class DedupStep {
  private final SeenIds seen;
  private final Clock clock;
  private final GateListener listener;
  private ProcessorContext<byte[], Object> context;

  DedupStep(SeenIds seen, Clock clock, GateListener listener) {
    this.seen = seen;
    this.clock = clock;
    this.listener = listener;
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /**
   * True when the event goes on: its provider keeps no window, or it is the first record of its
   * id within it (or the store did not answer); false when it was a duplicate, told on outcomes.
   *
   * @param status what the gate does with it if it is the first ({@link DedupMark#ACCEPTED},
   *               {@link DedupMark#SCHEDULED})
   */
  boolean first(Record<byte[], byte[]> record, WorkEvent event, String tier, SluiceConfig config, String status) {
    ProviderIntake intake = config.providers().get(event.provider()).intake();
    if (!intake.dedups()) {
      return true;
    }
    long now = clock.millis();
    String source = context.recordMetadata()
        .map(m -> DeadLetter.source(m.topic(), m.partition(), m.offset())).orElse("unknown");
    DedupMark mine = new DedupMark(source, now, status);
    String key = new BucketKey(event.provider(), event.tenant()).seenKey(event.id());
    DedupMark first = DedupMark.decoded(seen.firstMark(key, mine.encoded(), intake.dedupWindow()));
    // An operator's replay of a dead letter is called again: the window is against producers' repeats.
    if (!mine.duplicates(first) || record.headers().lastHeader(ReplayOf.HEADER) != null) {
      return true;
    }
    listener.duplicate(event.provider(), tier);
    DuplicateOutcome outcome = new DuplicateOutcome(event.id(), event.tenant(), event.provider(), tier, now,
        new DuplicateOutcome.First(first.source(), first.acceptedAtMillis(), first.status()));
    RecordHeaders headers = new RecordHeaders();
    headers.add(HeaderNames.EVENT_ID, event.id().getBytes(StandardCharsets.UTF_8));
    headers.add(HeaderNames.OUTCOME, DuplicateOutcome.DUPLICATE.getBytes(StandardCharsets.UTF_8));
    context.forward(new Record<>(record.key(), (Object) encoded(outcome), now, headers), GateNodes.OUTCOMES_SINK);
    return false;
  }

  private static byte[] encoded(DuplicateOutcome outcome) {
    try {
      return Json.writer().writeValueAsBytes(outcome);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("an outcome of strings and numbers always writes", e);
    }
  }
}
