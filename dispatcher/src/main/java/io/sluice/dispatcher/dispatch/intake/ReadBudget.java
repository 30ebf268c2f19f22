package io.sluice.dispatcher.dispatch.intake;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.Set;

/**
 * What a dispatcher may hold read and not yet settled, and so whether it reads on: the records
 * against a count, and their bytes against {@code dispatcher.bufferBytes}, one account per
 * provider ({@link ByteBudget}). Pure and single-threaded (the consumer thread owns it).
 *
 * <p>An entry is held from the moment it is read until it is settled or dropped: queued, in
 * flight, or its settlement being written. Records of no configured provider (dead at once) are
 * held in an account of their own, {@code ""}.
 *
 * <p>Two limits, each with its own reason:
 * <ul>
 *   <li>on arrival, a provider's share of the bytes ({@link #fits}): a record beyond it overflows
 *       through the ladder, and the other providers keep reading;</li>
 *   <li>for reading as a whole ({@link #pauseReading}): past {@code maxUnsettled} records (and
 *       {@link #PER_ENDPOINT_LANE} more for each live lane toward a tenant's endpoint) or the
 *       whole byte budget, reading pauses, and resumes once both have drained to half, so that it
 *       does not flap. This binds only when writes to Kafka fall behind, which holds up every
 *       provider anyway.</li>
 * </ul>
 */
public final class ReadBudget {
  /**
   * Records each live endpoint lane adds to the count past which reading pauses. A per-tenant
   * provider is one provider in {@code maxUnsettled} however many of its endpoints are busy; a
   * thousand busy endpoints then shared about 3,000 records, two or three queued each, and
   * reading paused in normal running (1,245 of 1,920 calls/s at 1,000 endpoints of 2/s). 32 is
   * 16 s of backlog at 2/s; the bytes stay bounded by {@code bufferBytes} and the lanes by
   * {@code TenantEndpoints.MAX_LANES} (2,000 live, as many retiring).
   */
  public static final int PER_ENDPOINT_LANE = 32;

  private final Set<String> providers;
  private final int maxUnsettled;
  private final ByteBudget bytes;

  /**
   * @param providers    the configured providers, one byte account each
   * @param maxUnsettled records held past which reading pauses
   * @param bufferBytes  the bytes held past which reading pauses ({@code dispatcher.bufferBytes})
   */
  public ReadBudget(Set<String> providers, int maxUnsettled, long bufferBytes) {
    this.providers = Set.copyOf(providers);
    this.maxUnsettled = maxUnsettled;
    this.bytes = new ByteBudget(bufferBytes, Math.max(1, providers.size()));
  }

  /** Whether the entry's provider has room for it in its share; judged before it is held. */
  public boolean fits(DispatchEntry entry) {
    return bytes.admits(accountOf(entry), sizeOf(entry));
  }

  /** Counts the entry's bytes against its provider's account until it is released. */
  public void hold(DispatchEntry entry) {
    bytes.add(accountOf(entry), sizeOf(entry));
  }

  /** The entry settled (or was dropped): its bytes are no longer held. */
  public void release(DispatchEntry entry) {
    bytes.release(accountOf(entry), sizeOf(entry));
  }

  /** Bytes held for {@code provider} now. */
  public long heldBytes(String provider) {
    return bytes.used(provider);
  }

  /**
   * Whether reading should be paused, given whether it is now, how many records are unsettled, and
   * how many lanes toward tenants' endpoints are live.
   */
  public boolean pauseReading(boolean pausedNow, int unsettled, int endpointLanes) {
    long max = maxUnsettled + (long) PER_ENDPOINT_LANE * Math.max(0, endpointLanes);
    return pausedNow
        ? unsettled > max / 2 || bytes.shouldPause(true)
        : unsettled > max || bytes.shouldPause(false);
  }

  private static long sizeOf(DispatchEntry entry) {
    return ByteBudget.sizeOf(entry.key(), entry.value(), entry.headers());
  }

  /** The provider's account, or "" for records no lane holds (dead at once). */
  private String accountOf(DispatchEntry entry) {
    return entry.event() != null && providers.contains(entry.event().provider())
        ? entry.event().provider() : "";
  }
}
