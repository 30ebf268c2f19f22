package io.sluice.gate;

import io.sluice.config.OrderingRule;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.order.OrderKeys;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.order.OrderTicket;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.time.Clock;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The gate's step for an event with an {@code orderingKey} toward a provider with {@code ordering:
 * perKey}, on its first sight ({@code inbound}) once it is sure to go on (valid, not a duplicate,
 * its time not refused): it takes its key's next turn ({@link OrderStore#assign}), carried from
 * then on in the header {@code sluice-order}. The gate reads a partition in order, and a tenant's
 * events share one partition (the key is the tenant), so turns follow the order events entered
 * {@code sluice.inbound}; the dispatcher calls each at its turn only. A record read again after a
 * crash gets its turn again (the turn is remembered by the record's source), never a second one.
 *
 * <p>An event that gets no turn is not called out of order: it is dead-lettered, {@code
 * not_ordered} when its tenant has its provider's {@code maxOrderingKeys} keys in flight,
 * {@code redis_unavailable} when Redis did not answer. Either way its key goes on without it, as
 * after a dead head. An event with a turn that the gate dead-letters later (back from the ladder,
 * its tenant removed by a reload) gives its turn up ({@link #deadHere}).
 */
final class OrderStep {
  private final OrderStore store;
  private final Clock clock;
  private final GateListener listener;
  private ProcessorContext<byte[], Object> context;

  OrderStep(OrderStore store, Clock clock, GateListener listener) {
    this.store = store;
    this.clock = clock;
    this.listener = listener;
  }

  void init(ProcessorContext<byte[], Object> context) {
    this.context = context;
  }

  /**
   * True when the event goes on: unordered (its provider does not order, or it has no key), or
   * given its turn (written into {@code record}'s headers); false when it was dead-lettered here.
   */
  boolean turn(Record<byte[], byte[]> record, WorkEvent event, SluiceConfig config) {
    OrderingRule rule = config.providers().get(event.provider()).intake().ordering();
    if (!rule.perKey() || event.orderingKey() == null) {
      return true;
    }
    String source = context.recordMetadata()
        .map(m -> DeadLetter.source(m.topic(), m.partition(), m.offset())).orElse("unknown");
    OrderStore.Assigned assigned = store.assign(new OrderKeys(event.provider(), event.tenant()),
        event.orderingKey(), source, rule.maxKeysInFlight());
    if (assigned instanceof OrderStore.Assigned.Given given) {
      HeaderValues.put(record.headers(), HeaderNames.ORDER, given.ticket().encoded());
      return true;
    }
    Reason reason;
    String detail;
    if (assigned instanceof OrderStore.Assigned.Full full) {
      reason = Reason.NOT_ORDERED;
      detail = "tenant '" + event.tenant() + "' has " + full.keys() + " ordering keys in flight toward provider '"
          + event.provider() + "' (its maxOrderingKeys); key '" + event.orderingKey() + "' got no turn";
    } else {
      reason = Reason.REDIS_UNAVAILABLE;
      detail = "Redis gave ordering key '" + event.orderingKey() + "' no turn ("
          + ((OrderStore.Assigned.Unanswered) assigned).why() + "); not called out of order";
    }
    listener.dead(reason);
    context.forward(DeadLetters.of(record, event, record.value(), reason, detail, event.id(), context,
        clock.millis()), GateNodes.DLQ_SINK);
    return false;
  }

  /**
   * The gate dead-lettered {@code record}, which may hold a turn: the turn is given up (its key's
   * next event goes on, or is blocked as its provider says). Nothing when it holds none.
   */
  void deadHere(Record<byte[], byte[]> record, WorkEvent event, SluiceConfig config) {
    if (event == null || event.orderingKey() == null) {
      return;
    }
    HeaderValues.last(record.headers(), HeaderNames.ORDER).flatMap(OrderTicket::decoded).ifPresent(ticket -> {
      ProviderConfig provider = config.providers().get(event.provider());
      boolean deadLetterFollowers = provider != null && provider.intake().ordering().deadLetterFollowers();
      store.settle(new OrderKeys(event.provider(), event.tenant()), event.orderingKey(), ticket,
          OrderStore.Settled.DEAD, deadLetterFollowers);
    });
  }
}
