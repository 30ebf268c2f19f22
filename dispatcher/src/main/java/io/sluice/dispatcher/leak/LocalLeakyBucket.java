package io.sluice.dispatcher.leak;

import io.sluice.config.ProviderLimit;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The leak kept in this process, for when Redis is down ({@code onRedisDown: local}): the same
 * {@link LeakMath}, one state per provider, behind a lock. Instances no longer see each other's
 * slots, so each leaks {@code rate / share}: with {@code share} set to the number of dispatcher
 * instances, together they stay within the provider's rate.
 *
 * <p>Its clock is its own (by default the wall clock in microseconds); as with Redis, a caller
 * converts a slot to a delay with {@code slot - claim.nowMicros()}. Its leak starts empty and is
 * not carried over to or from Redis: switching between the two costs at most one lookahead of
 * slots granted twice per instance.
 *
 * <p>Windows and concurrency do not start empty. Redis may have granted a window's whole amount
 * just before it stopped answering, and this instance cannot know what the others took; so a
 * provider's limits beyond the rate are held from the first local claim after Redis last answered
 * for it ({@link #standingInForRedis}, {@link #redisAnswered}) exactly as after a loss of Redis's data ({@link LimitMath},
 * "Lost data"): every window full as of that instant plus the lookahead, until that has left it,
 * and concurrency full until the leases Redis held would have expired. After that, the windows
 * hold only this instance's local slots, at its share of each amount. (This host's clock stands
 * in for Redis's here: a host behind Redis's clock by d ends the hold d early.)
 */
public final class LocalLeakyBucket implements LeakyBucket {
  private final LeakMath math;
  private final int share;
  private final LongSupplier clockMicros;
  private final Map<String, LeakState> states = new HashMap<>();
  private final Map<String, WindowLedger> ledgers = new HashMap<>();
  /** Per provider with a {@code totalRate}: its total line ({@link ProviderTotal}). */
  private final Map<String, LeakState> totals = new HashMap<>();
  /** Per provider: the first local claim of limits since Redis last answered for it. */
  private final Map<String, Long> heldSince = new HashMap<>();
  private final LimitMath limitMath;

  /**
   * @param share       how many instances share the provider's rate (each leaks rate / share), >= 1
   * @param clockMicros the clock, in microseconds
   */
  public LocalLeakyBucket(LeakConfig config, int share, LongSupplier clockMicros) {
    if (share < 1) {
      throw new IllegalArgumentException("share must be at least 1, not " + share);
    }
    this.math = new LeakMath(config);
    this.limitMath = new LimitMath(math);
    this.share = share;
    this.clockMicros = clockMicros;
  }

  public LocalLeakyBucket(LeakConfig config, int share) {
    this(config, share, LocalLeakyBucket::wallClockMicros);
  }

  @Override
  public synchronized CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros) {
    LeakMath.ClaimStep step = math.claim(
        state(provider), clockMicros.getAsLong(), ratePerSecond / share, wanted, lookaheadMicros);
    states.put(provider, step.next());
    return CompletableFuture.completedFuture(step.claim());
  }

  @Override
  public synchronized CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    LeakMath.ThrottleStep step = math.throttled(
        state(provider), clockMicros.getAsLong(), ratePerSecond / share, retryAfterMillis, startedAtMicros);
    states.put(provider, step.next());
    return CompletableFuture.completedFuture(step.decision());
  }

  /**
   * Jointly with the provider's total line, kept here per provider ({@link ProviderTotal}), at
   * this instance's share of both rates.
   */
  @Override
  public synchronized CompletionStage<SlotClaim> claim(String lane, double ratePerSecond,
      int wanted, long lookaheadMicros, ProviderTotal total) {
    LeakMath.JointStep step = math.claim(state(lane), totals.getOrDefault(total.provider(),
            LeakState.EMPTY), clockMicros.getAsLong(), ratePerSecond / share,
        total.ratePerSecond() / share, wanted, lookaheadMicros);
    states.put(lane, step.next());
    totals.put(total.provider(), step.nextTotal());
    return CompletableFuture.completedFuture(step.claim());
  }

  @Override
  public synchronized CompletionStage<SlotClaim> claim(String lane, ProviderLimits limits,
      LimitedClaim request, ProviderTotal total) {
    LeakMath.JointStep step = limitMath.claim(state(lane),
        totals.getOrDefault(total.provider(), LeakState.EMPTY), total.ratePerSecond() / share,
        ledgers.computeIfAbsent(lane, p -> new WindowLedger()), clockMicros.getAsLong(),
        heldSince.getOrDefault(lane, 0L), limits.dividedAmong(share), request);
    states.put(lane, step.next());
    totals.put(total.provider(), step.nextTotal());
    return CompletableFuture.completedFuture(step.claim());
  }

  /**
   * Every limit, each at this instance's share ({@link ProviderLimits#dividedAmong}), on this
   * instance's own calls only: windows and leases are as local as the rate.
   */
  @Override
  public synchronized CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request) {
    LeakMath.ClaimStep step = limitMath.claim(state(provider),
        ledgers.computeIfAbsent(provider, p -> new WindowLedger()), clockMicros.getAsLong(),
        heldSince.getOrDefault(provider, 0L), limits.dividedAmong(share), request);
    states.put(provider, step.next());
    return CompletableFuture.completedFuture(step.claim());
  }

  /**
   * This leak stands in for Redis for {@code provider} from now on, until {@link #redisAnswered}:
   * the first call of a stretch starts its windows and concurrency held, as after a loss of
   * Redis's data (see the class comment); later calls of the same stretch change nothing.
   */
  public synchronized void standingInForRedis(String provider) {
    // (At least 1: 0 is "nothing lost" to LimitMath.)
    if (heldSince.putIfAbsent(provider, Math.max(1, clockMicros.getAsLong())) == null) {
      ledgers.put(provider, new WindowLedger());
    }
  }

  /**
   * Redis answered a claim for {@code provider}: its windows were kept there meanwhile, and the
   * next stretch without Redis starts a new hold.
   */
  public synchronized void redisAnswered(String provider) {
    heldSince.remove(provider);
  }

  @Override
  public synchronized CompletionStage<Void> release(String provider, String leaseId) {
    WindowLedger ledger = ledgers.get(provider);
    if (ledger != null) {
      ledger.release(leaseId);
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletionStage<Void> settle(String provider, ProviderLimits limits,
      long slotMicros, long reserved, long actual) {
    WindowLedger ledger = ledgers.get(provider);
    if (ledger != null) {
      for (ProviderLimit l : limits.dividedAmong(share).beyondRate()) {
        if (l.kind() == ProviderLimit.Kind.COST) {
          ledger.settle(l, slotMicros, reserved, actual);
        }
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  private LeakState state(String provider) {
    return states.getOrDefault(provider, LeakState.EMPTY);
  }

  static long wallClockMicros() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }
}
