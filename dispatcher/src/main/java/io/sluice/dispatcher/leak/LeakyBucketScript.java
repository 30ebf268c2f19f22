package io.sluice.dispatcher.leak;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.ProviderLimit;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The leak's script, {@code lua/leaky_bucket.lua}, and its calling convention: each mode's
 * arguments and answers by the names the script's header gives them (a constant's position is the
 * script's 1-based index less one; {@code LeakyBucketScriptHeaderTest} holds both to the header).
 * {@link RedisLeakyBucket} chooses the keys and the values; this class alone knows where each goes
 * and where each answer comes back.
 */
final class LeakyBucketScript {
  public static final String RESOURCE = "/lua/leaky_bucket.lua";

  /** {@code ARGV[1]}: what the call does. */
  public enum Mode {
    CLAIM, THROTTLED, BUSY, RELEASE, SETTLE;

    String arg() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** {@code ARGV[1..10]} of a claim (the first six alone: a claim of the leak only). */
  public enum ClaimArg {
    MODE, RATE, MIN_FACTOR, RECOVERY_US, WANTED, LOOKAHEAD_US, N, SLOT_COST, LEASE_PREFIX, LEASE_US
  }

  /** Limit i's five arguments of a claim, from {@code ARGV[11 + 5(i-1)]}. */
  public enum LimitArg {
    KIND, AMOUNT, PER_US, WINDOW, MARGIN_US
  }

  /** The arguments after a claim's n limits: {@code ARGV[11 + 5n]} and {@code ARGV[12 + 5n]}. */
  public enum ClaimTailArg {
    HOLDS, TOTAL_RATE
  }

  /** {@code ARGV[1..6]} of a 429's report. */
  public enum ThrottledArg {
    MODE, RATE, MIN_FACTOR, RECOVERY_US, RETRY_MS, STARTED_US
  }

  /** {@code ARGV[1..4]} of a lane's busy tenants. */
  public enum BusyArg {
    MODE, MEMBER, TTL_US, COUNTS
  }

  /** {@code ARGV[1..4]} of a settle, then {@link SettleLimitArg} for each cost limit. */
  public enum SettleArg {
    MODE, SLOT_US, RESERVED, ACTUAL
  }

  /** Cost limit i's three arguments of a settle, from {@code ARGV[5 + 3(i-1)]}. */
  public enum SettleLimitArg {
    WINDOW, PER_US, MARGIN_US
  }

  /** The six answers to a claim. */
  public enum ClaimAnswer {
    GRANTED, NOW_US, FIRST_US, INTERVAL_US, RETRY_US, FACTOR
  }

  /** The four answers to a 429's report. */
  public enum ThrottledAnswer {
    CUT, NOW_US, PAUSE_US, FACTOR
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private LeakyBucketScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }

  /** A claim of the leak alone: {@code ARGV[1..6]}. */
  static String[] claim(double rate, LeakConfig config, int wanted, long lookaheadMicros) {
    String[] args = new String[ClaimArg.LOOKAHEAD_US.ordinal() + 1];
    common(args, Mode.CLAIM, rate, config);
    args[ClaimArg.WANTED.ordinal()] = Integer.toString(wanted);
    args[ClaimArg.LOOKAHEAD_US.ordinal()] = Long.toString(lookaheadMicros);
    return args;
  }

  /**
   * A claim with limits beyond the rate ({@code limits} in key order, {@code holds} one flag a
   * limit), and with the provider's total line when {@code totalRate} is not null.
   */
  static String[] claim(double rate, LeakConfig config, LimitedClaim request,
      List<ProviderLimit> limits, String holds, Double totalRate) {
    return claim(rate, config, request.wanted(), request.lookaheadMicros(), request.slotCost(),
        request.leasePrefix(), request.leaseMicros(), limits, holds, totalRate);
  }

  /** A claim of the leak and the provider's total line, no limits: n = 0, empty limit arguments. */
  static String[] jointClaim(double rate, LeakConfig config, int wanted, long lookaheadMicros,
      double totalRate) {
    return claim(rate, config, wanted, lookaheadMicros, 1, "", 0, List.of(), "", totalRate);
  }

  private static String[] claim(double rate, LeakConfig config, int wanted, long lookaheadMicros,
      long slotCost, String leasePrefix, long leaseMicros, List<ProviderLimit> limits, String holds,
      Double totalRate) {
    String[] head = new String[ClaimArg.values().length];
    common(head, Mode.CLAIM, rate, config);
    head[ClaimArg.WANTED.ordinal()] = Integer.toString(wanted);
    head[ClaimArg.LOOKAHEAD_US.ordinal()] = Long.toString(lookaheadMicros);
    head[ClaimArg.N.ordinal()] = Integer.toString(limits.size());
    head[ClaimArg.SLOT_COST.ordinal()] = Long.toString(slotCost);
    head[ClaimArg.LEASE_PREFIX.ordinal()] = leasePrefix;
    head[ClaimArg.LEASE_US.ordinal()] = Long.toString(leaseMicros);
    List<String> args = new ArrayList<>(Arrays.asList(head));
    for (ProviderLimit l : limits) {
      String[] limit = new String[LimitArg.values().length];
      boolean windowed = l.per() != null;
      limit[LimitArg.KIND.ordinal()] = l.kind().name().toLowerCase(Locale.ROOT);
      limit[LimitArg.AMOUNT.ordinal()] = Long.toString((long) l.amount());
      limit[LimitArg.PER_US.ordinal()] = windowed ? Long.toString(WindowLedger.perMicros(l)) : "0";
      limit[LimitArg.WINDOW.ordinal()] = windowed ? l.window().name().toLowerCase(Locale.ROOT) : "-";
      limit[LimitArg.MARGIN_US.ordinal()] = Long.toString(WindowLedger.marginMicros(l));
      args.addAll(Arrays.asList(limit));
    }
    String[] tail = new String[totalRate == null ? 1 : 2];
    tail[ClaimTailArg.HOLDS.ordinal()] = holds;
    if (totalRate != null) {
      tail[ClaimTailArg.TOTAL_RATE.ordinal()] = Double.toString(totalRate);
    }
    args.addAll(Arrays.asList(tail));
    return args.toArray(String[]::new);
  }

  /** A 429's report: {@code ARGV[1..6]}. */
  static String[] throttled(double rate, LeakConfig config, long retryAfterMillis, long startedAtMicros) {
    String[] args = new String[ThrottledArg.values().length];
    common(args, Mode.THROTTLED, rate, config);
    args[ThrottledArg.RETRY_MS.ordinal()] = Long.toString(retryAfterMillis);
    args[ThrottledArg.STARTED_US.ordinal()] = Long.toString(startedAtMicros);
    return args;
  }

  /** A lane's busy tenants per tier, sent as a JSON object. */
  static String[] busy(String member, long ttlMicros, Map<String, Integer> busyByTier) {
    String counts;
    try {
      counts = JSON.writeValueAsString(busyByTier);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("cannot encode " + busyByTier, e);
    }
    String[] args = new String[BusyArg.values().length];
    args[BusyArg.MODE.ordinal()] = Mode.BUSY.arg();
    args[BusyArg.MEMBER.ordinal()] = member;
    args[BusyArg.TTL_US.ordinal()] = Long.toString(ttlMicros);
    args[BusyArg.COUNTS.ordinal()] = counts;
    return args;
  }

  /** A concurrency lease given back: {@code ARGV[2]} the lease id. */
  static String[] release(String leaseId) {
    return new String[] {Mode.RELEASE.arg(), leaseId};
  }

  /** A slot's cost lowered from {@code reserved} to {@code actual} in each of {@code costs}. */
  static String[] settle(long slotMicros, long reserved, long actual, List<ProviderLimit> costs) {
    String[] head = new String[SettleArg.values().length];
    head[SettleArg.MODE.ordinal()] = Mode.SETTLE.arg();
    head[SettleArg.SLOT_US.ordinal()] = Long.toString(slotMicros);
    head[SettleArg.RESERVED.ordinal()] = Long.toString(reserved);
    head[SettleArg.ACTUAL.ordinal()] = Long.toString(actual);
    List<String> args = new ArrayList<>(Arrays.asList(head));
    for (ProviderLimit l : costs) {
      String[] limit = new String[SettleLimitArg.values().length];
      limit[SettleLimitArg.WINDOW.ordinal()] = l.window().name().toLowerCase(Locale.ROOT);
      limit[SettleLimitArg.PER_US.ordinal()] = Long.toString(WindowLedger.perMicros(l));
      limit[SettleLimitArg.MARGIN_US.ordinal()] = Long.toString(WindowLedger.marginMicros(l));
      args.addAll(Arrays.asList(limit));
    }
    return args.toArray(String[]::new);
  }

  /** The answer to a claim. */
  static SlotClaim slotClaim(List<Object> reply) {
    return new SlotClaim(
        Long.parseLong((String) reply.get(ClaimAnswer.NOW_US.ordinal())),
        ((Long) reply.get(ClaimAnswer.GRANTED.ordinal())).intValue(),
        Long.parseLong((String) reply.get(ClaimAnswer.FIRST_US.ordinal())),
        Long.parseLong((String) reply.get(ClaimAnswer.INTERVAL_US.ordinal())),
        Long.parseLong((String) reply.get(ClaimAnswer.RETRY_US.ordinal())),
        Double.parseDouble((String) reply.get(ClaimAnswer.FACTOR.ordinal())));
  }

  /** The answer to a 429's report. */
  static ThrottleDecision throttleDecision(List<Object> reply) {
    return new ThrottleDecision(
        Long.parseLong((String) reply.get(ThrottledAnswer.NOW_US.ordinal())),
        ((Long) reply.get(ThrottledAnswer.CUT.ordinal())) == 1L,
        Double.parseDouble((String) reply.get(ThrottledAnswer.FACTOR.ordinal())),
        Long.parseLong((String) reply.get(ThrottledAnswer.PAUSE_US.ordinal())));
  }

  /** The answer to {@code busy}: a JSON object of tier to count ({@code {}} or {@code []} when empty). */
  static Map<String, Integer> busyCounts(List<Object> reply) {
    String json = (String) reply.get(0);
    if (json.equals("[]") || json.equals("{}")) {
      return Map.of();
    }
    try {
      Map<String, Integer> counts = new HashMap<>();
      JSON.readTree(json).properties().forEach(e -> counts.put(e.getKey(), e.getValue().asInt()));
      return counts;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the leak script answered busy counts that are not JSON: " + json, e);
    }
  }

  /** {@code ARGV[1..4]}, the same in a claim and a 429's report. */
  private static void common(String[] args, Mode mode, double rate, LeakConfig config) {
    args[ClaimArg.MODE.ordinal()] = mode.arg();
    args[ClaimArg.RATE.ordinal()] = Double.toString(rate);
    args[ClaimArg.MIN_FACTOR.ordinal()] = Double.toString(config.minRateFactor());
    args[ClaimArg.RECOVERY_US.ordinal()] = Long.toString(config.recoveryMicros());
  }
}
