package io.sluice.gate.limiter;

import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import io.sluice.gate.limiter.TokenBucketStore.BucketCall;
import java.util.ArrayList;
import java.util.List;

/**
 * The gate's token-bucket script, {@code lua/token_bucket.lua}, and its calling convention: the
 * keys, arguments and answers of one request, each by the name the script's header gives it
 * ({@link Key}, {@link Arg}, {@link Answer}: a constant's position is the script's 1-based index
 * less one, and {@code TokenBucketScriptHeaderTest} holds both to the header). A batch of N
 * requests is N such blocks in a row: request i's keys, arguments and answers start at
 * {@code i * Key.COUNT}, {@code i * Arg.COUNT} and {@code i * Answer.COUNT}.
 */
public final class TokenBucketScript {
  public static final String RESOURCE = "/lua/token_bucket.lua";

  /** {@code KEYS[1..2]} of one request. */
  public enum Key {
    /** The bucket's hash ({@link BucketKey#redisKey}). */
    BUCKET,
    /** The marker of the bucket's cluster slot ({@link SlotMarkers}). */
    MARKER;

    static final int COUNT = values().length;
  }

  /** {@code ARGV[1..10]} of one request, named as in the header. */
  public enum Arg {
    CAPACITY, REFILL, WANT, NEED, HORIZON_US, HOLDER, HOLD_US, RELEASE, PLACES, SHADOW;

    static final int COUNT = values().length;
  }

  /** The nine answers to one request, named as in the header's "Returns". */
  public enum Answer {
    GRANTED, LEVEL, NOW_US, TICKET_US, LEASE_ID, LEASE_END, LINE_END, OLD_RATE, OLD_END;

    static final int COUNT = values().length;
  }

  /** The keys and arguments of one script call. */
  record Call(String[] keys, String[] args) {}

  private TokenBucketScript() {}

  public static LuaScript load() {
    return LuaScript.load(RESOURCE);
  }

  /** One call deciding {@code batch} in order (the script's batch form). */
  static Call encode(List<BucketCall> batch) {
    String[] keys = new String[Key.COUNT * batch.size()];
    String[] args = new String[Arg.COUNT * batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      BucketCall c = batch.get(i);
      BucketSpec spec = c.spec();
      AcquireRequest request = c.request();
      int k = Key.COUNT * i;
      String bucket = c.key().redisKey();
      keys[k + Key.BUCKET.ordinal()] = bucket;
      keys[k + Key.MARKER.ordinal()] = SlotMarkers.markerOf(bucket);
      int a = Arg.COUNT * i;
      args[a + Arg.CAPACITY.ordinal()] = Double.toString(spec.capacity());
      args[a + Arg.REFILL.ordinal()] = Double.toString(spec.refillPerSecond());
      args[a + Arg.WANT.ordinal()] = Integer.toString(request.want());
      args[a + Arg.NEED.ordinal()] = Integer.toString(request.need());
      args[a + Arg.HORIZON_US.ordinal()] = Long.toString(spec.horizonMicros());
      args[a + Arg.HOLDER.ordinal()] = request.owed() ? "2" : request.holder() ? "1" : "0";
      args[a + Arg.HOLD_US.ordinal()] = Long.toString(request.holdMicros());
      args[a + Arg.RELEASE.ordinal()] = request.release() == null ? "" : request.release().encode();
      args[a + Arg.PLACES.ordinal()] = request.places() == null ? "" : request.places().encode();
      args[a + Arg.SHADOW.ordinal()] = request.shadow() ? "1" : "0";
    }
    return new Call(keys, args);
  }

  /** The script's answers, {@link Answer#COUNT} per request, in the order asked. */
  static List<Acquisition> decode(List<Object> reply) {
    List<Acquisition> answers = new ArrayList<>(reply.size() / Answer.COUNT);
    for (int o = 0; o + Answer.COUNT <= reply.size(); o += Answer.COUNT) {
      Answers a = new Answers(reply, o);
      answers.add(new Acquisition(
          (int) a.whole(Answer.GRANTED),
          a.decimal(Answer.LEVEL),
          a.whole(Answer.NOW_US),
          a.whole(Answer.TICKET_US),
          a.whole(Answer.LEASE_ID),
          a.whole(Answer.LEASE_END),
          a.whole(Answer.LINE_END),
          a.decimal(Answer.OLD_RATE),
          a.whole(Answer.OLD_END)));
    }
    return answers;
  }

  /** One request's answers, read by name from {@code offset} on. */
  private record Answers(List<Object> reply, int offset) {
    long whole(Answer answer) {
      return LuaScript.whole(reply.get(offset + answer.ordinal()));
    }

    double decimal(Answer answer) {
      return Double.parseDouble((String) reply.get(offset + answer.ordinal()));
    }
  }
}
