package io.sluice.dispatcher.dispatch.intake;

import io.sluice.config.ProviderConfig;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

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
 *       through the ladder, and the other providers keep reading; for a provider with an
 *       endpoint per tenant, also the endpoint's share of its provider's ({@link #ENDPOINT_SHARES}),
 *       so that one tenant's backlog of large events leaves its provider's other endpoints room;</li>
 *   <li>for reading: a partition holding more than its equal share of {@code maxUnsettled}
 *       records (and {@link #PER_ENDPOINT_LANE} more for each live lane toward a tenant's
 *       endpoint) pauses ({@link #pausePartition}), and every partition pauses past the whole
 *       byte budget ({@link #pauseForBytes}); each resumes once drained to half, so that it does
 *       not flap. The records limit binds when a backlog is larger than it; the bytes only when
 *       writes to Kafka fall behind, which holds up every provider anyway.</li>
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

  /**
   * How many equal shares of its provider's bytes an endpoint (a tenant's lane of a per-tenant
   * provider) may hold one of (issue 39, 4): a dead or slow endpoint with large events waiting
   * holds at most an eighth, the rest of its events overflow and wait parked, and its provider's
   * other endpoints keep reading. Eight, not the number of endpoints: most are idle at any moment,
   * and a share that small would overflow an endpoint's ordinary backlog.
   */
  public static final int ENDPOINT_SHARES = 8;

  private final Set<String> providers;
  /** The providers with an endpoint per tenant: each endpoint has a byte account of its own. */
  private final Set<String> perTenant;
  private final int maxUnsettled;
  private final ByteBudget bytes;
  private final ByteBudget endpointBytes;

  /**
   * @param providers    the configured providers, one byte account each
   * @param maxUnsettled records held past which reading pauses
   * @param bufferBytes  the bytes held past which reading pauses ({@code dispatcher.bufferBytes})
   */
  public ReadBudget(Set<String> providers, int maxUnsettled, long bufferBytes) {
    this(providers, Set.of(), maxUnsettled, bufferBytes);
  }

  /** The budget of a dispatcher of {@code providers}, each endpoint of a per-tenant one apart. */
  public static ReadBudget of(Map<String, ProviderConfig> providers, int maxUnsettled,
      long bufferBytes) {
    return new ReadBudget(providers.keySet(), providers.entrySet().stream()
        .filter(p -> p.getValue().perTenant()).map(Map.Entry::getKey)
        .collect(Collectors.toSet()), maxUnsettled, bufferBytes);
  }

  /**
   * @param perTenant the providers among {@code providers} with an endpoint per tenant
   */
  public ReadBudget(Set<String> providers, Set<String> perTenant, int maxUnsettled,
      long bufferBytes) {
    this.providers = Set.copyOf(providers);
    this.perTenant = Set.copyOf(perTenant);
    this.maxUnsettled = maxUnsettled;
    int accounts = Math.max(1, providers.size());
    this.bytes = new ByteBudget(bufferBytes, accounts);
    this.endpointBytes = new ByteBudget(bufferBytes, accounts * ENDPOINT_SHARES);
  }

  /**
   * Whether the entry's provider, and its endpoint if it has one of its own, have room for it in
   * their shares; judged before it is held.
   */
  public boolean fits(DispatchEntry entry) {
    long size = sizeOf(entry);
    String endpoint = endpointOf(entry);
    return bytes.admits(accountOf(entry), size)
        && (endpoint == null || endpointBytes.admits(endpoint, size));
  }

  /** Counts the entry's bytes against its provider's (and endpoint's) account until released. */
  public void hold(DispatchEntry entry) {
    long size = sizeOf(entry);
    bytes.add(accountOf(entry), size);
    String endpoint = endpointOf(entry);
    if (endpoint != null) {
      endpointBytes.add(endpoint, size);
    }
  }

  /** The entry settled (or was dropped): its bytes are no longer held. */
  public void release(DispatchEntry entry) {
    long size = sizeOf(entry);
    bytes.release(accountOf(entry), size);
    String endpoint = endpointOf(entry);
    if (endpoint != null) {
      endpointBytes.release(endpoint, size);
    }
  }

  /** Bytes held for {@code provider} now. */
  public long heldBytes(String provider) {
    return bytes.used(provider);
  }

  /**
   * Whether one of {@code partitions} owned partitions should be paused for its records, given
   * whether it is now, how many of its records are unsettled, and how many lanes toward tenants'
   * endpoints are live: each partition holds at most an equal share of the records limit
   * ({@code maxUnsettled} and {@link #PER_ENDPOINT_LANE} per endpoint lane), and a paused one
   * resumes once it has drained to half of it.
   *
   * <p>Why a share per partition and not one count for all: the count was shared, and reading
   * paused and resumed for every partition together. A resumed consumer fetches about as many
   * records from each partition, but the lanes fed by one partition can drain faster than the
   * other's (more busy endpoints there), so each round left that partition fewer queued, until
   * its lanes ran dry while the other partition still held the count above half. Seen from
   * outside at 1,000 endpoints of 2/s with a backlog past the limit: the 519 endpoints of one
   * partition stopped together for 2.5 s every 30 s, 3.6% of their calls, after 250 s of backlog
   * (the waiting per partition, logged each second, went 6,472 / 10,883 at a resume, then 3,326 /
   * 13,979). A partition's own share bounds what it holds whatever the other does; the shares
   * add up to the same limit.
   */
  public boolean pausePartition(boolean pausedNow, int unsettled, int endpointLanes,
      int partitions) {
    long max = (maxUnsettled + (long) PER_ENDPOINT_LANE * Math.max(0, endpointLanes))
        / Math.max(1, partitions);
    return pausedNow ? unsettled > max / 2 : unsettled > max;
  }

  /**
   * Whether reading should be paused for the bytes held, every partition (they are one budget,
   * {@code dispatcher.bufferBytes}), given whether it is now.
   */
  public boolean pauseForBytes(boolean pausedNow) {
    return bytes.shouldPause(pausedNow);
  }

  private static long sizeOf(DispatchEntry entry) {
    return ByteBudget.sizeOf(entry.key(), entry.value(), entry.headers());
  }

  /** The endpoint's account ({@code provider/tenant}) of a per-tenant provider's entry, or null. */
  private String endpointOf(DispatchEntry entry) {
    return entry.event() != null && perTenant.contains(entry.event().provider())
        ? entry.event().provider() + "/" + entry.event().tenant() : null;
  }

  /** The provider's account, or "" for records no lane holds (dead at once). */
  private String accountOf(DispatchEntry entry) {
    return entry.event() != null && providers.contains(entry.event().provider())
        ? entry.event().provider() : "";
  }
}
