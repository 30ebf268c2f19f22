package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.settlement.WriteStall;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this dispatcher's calls may start: not while its settlements go unacknowledged by Kafka
 * ({@link WriteStall}, asked through the writer). Every lane asks as each slot fires (the slot then
 * goes unused, counted with reason {@code unwritten}); {@link #why} is what {@code status} shows;
 * each wait is logged once when it begins and once when it ends. Any thread.
 */
final class CallsWait implements BooleanSupplier {
  private static final Logger LOG = LoggerFactory.getLogger(CallsWait.class);

  /** Why calls must wait now, or empty ({@code SettlementWriter#stall}). */
  private final Supplier<Optional<String>> stall;
  private final AtomicBoolean waiting = new AtomicBoolean();
  private volatile Optional<String> why = Optional.empty();

  CallsWait(Supplier<Optional<String>> stall) {
    this.stall = stall;
  }

  /** True when a call may start now. */
  @Override
  public boolean getAsBoolean() {
    return note(stall.get()).isEmpty();
  }

  /** Looks again (the consumer loop), so the end of a wait is seen while no slot fires. */
  void tick() {
    note(stall.get());
  }

  /** Why calls wait, as last seen; empty while they go. */
  Optional<String> why() {
    return why;
  }

  private Optional<String> note(Optional<String> now) {
    why = now;
    if (now.isPresent() && waiting.compareAndSet(false, true)) {
      LOG.warn("dispatcher: new calls wait: {}. An answer taken while Kafka cannot write its "
          + "outcome is lost to a crash and called again by the next owner; the calls in flight "
          + "finish, and calls go again once the settlements are acknowledged (metric: "
          + "sluice_dispatch_slots_wasted_total{{reason=\"unwritten\"}})", now.get());
    } else if (now.isEmpty() && waiting.compareAndSet(true, false)) {
      LOG.info("dispatcher: calls go again: Kafka acknowledges the settlements");
    }
    return now;
  }
}
