package io.sluice.dispatcher.feedback;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.dispatcher.DispatcherKeys;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@link LearnedLimitStore} in Redis: one hash per provider, {@code sluice:v1:{<provider>}:learned}
 * (hash-tagged like the provider's leak, so both live in one Redis Cluster slot), written and read
 * by {@code lua/learned_limits.lua}. Expiries are on Redis's clock and converted to the reader's
 * with the script's {@code TIME}, so clock skew between dispatcher hosts changes nothing.
 */
public final class RedisLearnedLimitStore implements LearnedLimitStore {
  static final String RESOURCE = "/lua/learned_limits.lua";

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script = LuaScript.load(RESOURCE);

  public RedisLearnedLimitStore(RedisScriptingAsyncCommands<String, String> commands) {
    this.commands = commands;
  }

  /** The key of a provider's learned limits. */
  public static String redisKey(String provider) {
    return DispatcherKeys.learned(provider);
  }

  @Override
  public CompletionStage<Void> put(String provider, Collection<LearnedLimit> limits) {
    List<String> args = new ArrayList<>();
    args.add("put");
    for (LearnedLimit l : limits) {
      args.add(l.name());
      args.add(l.unit().label());
      args.add(Long.toString(l.quota()));
      args.add(Long.toString(l.windowMillis()));
    }
    return script.run(commands, new String[] {redisKey(provider)}, args.toArray(String[]::new),
        () -> {}).thenApply(reply -> null);
  }

  @Override
  public CompletionStage<Void> forget(String provider, Collection<String> names) {
    List<String> args = new ArrayList<>();
    args.add("forget");
    args.addAll(names);
    return script.run(commands, new String[] {redisKey(provider)}, args.toArray(String[]::new),
        () -> {}).thenApply(reply -> null);
  }

  @Override
  public CompletionStage<List<LearnedLimit>> get(String provider, long nowMillis) {
    return script.run(commands, new String[] {redisKey(provider)}, new String[] {"get"}, () -> {})
        .thenApply(reply -> {
          long redisNow = (Long) reply.get(0);
          List<LearnedLimit> limits = new ArrayList<>();
          for (int i = 1; i + 1 < reply.size(); i += 2) {
            LearnedLimit l = decode(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)),
                nowMillis - redisNow);
            if (l != null) {
              limits.add(l);
            }
          }
          return limits;
        });
  }

  /** A stored field, or null if it is not one this version wrote (skipped, never fatal). */
  static LearnedLimit decode(String name, String value, long clockOffsetMillis) {
    String[] parts = value.split(":");
    if (parts.length != 4) {
      return null;
    }
    try {
      LimitUnit unit = parts[0].equals("cost") ? LimitUnit.COST
          : parts[0].equals("calls") ? LimitUnit.CALLS : null;
      long quota = Long.parseLong(parts[1]);
      long window = Long.parseLong(parts[2]);
      long expires = Long.parseLong(parts[3]) + clockOffsetMillis;
      return unit == null || quota < 0 || window <= 0 ? null
          : new LearnedLimit(name, unit, quota, window, expires);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
