package io.sluice.dispatcher.dispatch;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link DeliveredLog} in Redis: one sorted set per partition, {@code lua/delivered.lua}. */
public final class RedisDeliveredLog implements DeliveredLog {
  private static final Logger LOG = LoggerFactory.getLogger(RedisDeliveredLog.class);
  static final String RESOURCE = "/lua/delivered.lua";
  /**
   * How long a partition's log outlives its last delivery. Its entries matter until the commit
   * passes them, seconds in the steady state; ten minutes cover a broker outage and the slowest
   * takeover with room to spare.
   */
  static final long TTL_MILLIS = 600_000;

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script = LuaScript.load(RESOURCE);
  private final String group;

  /** @param group the dispatcher group: its partitions' logs are its own */
  public RedisDeliveredLog(RedisScriptingAsyncCommands<String, String> commands, String group) {
    this.commands = commands;
    this.group = group;
  }

  /**
   * {@code sluice:v1:{<group>:<topic>-<partition>}:delivered}: versioned like the leak's keys,
   * hash-tagged so a Redis Cluster keeps it in one slot.
   */
  static String redisKey(String group, TopicPartition partition) {
    return "sluice:v1:{" + group + ":" + partition + "}:delivered";
  }

  @Override
  public CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered) {
    if (delivered.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<String> args = new ArrayList<>(delivered.size() + 3);
    args.add("add");
    args.add(Long.toString(TTL_MILLIS));
    args.add(Long.toString(keepFrom));
    for (Delivered d : delivered) {
      args.add(d.offset() + ":" + d.status() + ":" + d.attempts());
    }
    try {
      return script.run(commands, new String[] {redisKey(group, partition)}, args.toArray(String[]::new), () -> {})
          .handle((reply, error) -> {
            if (error != null) {
              LOG.debug("dispatcher: could not record {} deliveries of {} ({})", delivered.size(), partition,
                  error.toString());
            }
            return null;
          });
    } catch (RuntimeException e) {
      LOG.debug("dispatcher: could not record deliveries of {} ({})", partition, e.toString());
      return CompletableFuture.completedFuture(null);
    }
  }

  @Override
  public CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
    return script.run(commands, new String[] {redisKey(group, partition)}, new String[] {"since", Long.toString(from)},
        () -> {}).thenApply(RedisDeliveredLog::parse);
  }

  static Map<Long, Delivered> parse(List<Object> members) {
    Map<Long, Delivered> delivered = new HashMap<>();
    for (Object m : members) {
      String[] parts = String.valueOf(m).split(":");
      if (parts.length == 3) {
        try {
          Delivered d = new Delivered(Long.parseLong(parts[0]), Integer.parseInt(parts[1]),
              Integer.parseInt(parts[2]));
          delivered.put(d.offset(), d);
        } catch (NumberFormatException e) {
          // not ours: ignored (the record is called again, as without the log)
        }
      }
    }
    return delivered;
  }
}
