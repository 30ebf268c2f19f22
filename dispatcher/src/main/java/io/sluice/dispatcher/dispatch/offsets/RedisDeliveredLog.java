package io.sluice.dispatcher.dispatch.offsets;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeliveredLog} in Redis: one sorted set per partition incarnation, {@code lua/delivered.lua}.
 *
 * <p><b>Which partition.</b> An offset means something only in one incarnation of a topic: a
 * topic deleted and created again within the TTL, the same names on a mirrored cluster after a
 * failover, or two deployments with the default names on one Redis all bring new records at old
 * offsets. So the key names the Kafka cluster's id and the topic's id besides the group and the
 * partition ({@link TopicIdentity}), looked up when the partition is assigned ({@link #since});
 * its deliveries are written under that assignment's ids. A partition whose ids could not be
 * told is neither read (nothing is skipped) nor written (its calls would be made again).
 *
 * <p><b>Bound.</b> At most {@link #MAX_ENTRIES} entries per partition incarnation (the highest
 * offsets are kept), whatever holds the commit back; a key expires {@link #TTL_MILLIS} after its
 * last write, and an old incarnation's key is never written again.
 */
public final class RedisDeliveredLog implements DeliveredLog {
  private static final Logger LOG = LoggerFactory.getLogger(RedisDeliveredLog.class);
  static final String RESOURCE = "/lua/delivered.lua";
  /**
   * How long a partition's log outlives its last delivery. Its entries matter until the commit
   * passes them, seconds in the steady state; ten minutes cover a broker outage and the slowest
   * takeover with room to spare.
   */
  static final long TTL_MILLIS = 600_000;
  /**
   * Most entries kept per partition incarnation: a provider held for long holds the commit back
   * while the others go on delivering, and every entry beyond the commit is kept. Past this the
   * lowest offsets are dropped (those calls would be made again; the commit's metadata keeps the
   * lowest settled offsets, so the two complement each other). Measured on redis-server 7:
   * 20,000 entries with 7-digit offsets take 2.26 MB (MEMORY USAGE), so at most about 2.3 MB per
   * partition.
   */
  static final int MAX_ENTRIES = 20_000;

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final LuaScript script = LuaScript.load(RESOURCE);
  private final String group;
  private final TopicIdentity identity;
  /** Each partition's ids as of its last assignment ({@link #since}): where its deliveries go. */
  private final Map<TopicPartition, TopicIdentity.Ids> assigned = new ConcurrentHashMap<>();

  /**
   * @param group    the dispatcher group: its partitions' logs are its own
   * @param identity tells which cluster and which incarnation of the topic a partition is of
   */
  public RedisDeliveredLog(RedisScriptingAsyncCommands<String, String> commands, String group,
      TopicIdentity identity) {
    this.commands = commands;
    this.group = group;
    this.identity = identity;
  }

  /**
   * {@code sluice:v2:{<group>:<topic>-<partition>}:delivered:<cluster id>:<topic id>}: versioned
   * like the leak's keys, hash-tagged so a Redis Cluster keeps a partition's incarnations in one
   * slot.
   */
  static String redisKey(String group, TopicPartition partition, TopicIdentity.Ids ids) {
    return "sluice:v2:{" + group + ":" + partition + "}:delivered:" + ids.clusterId() + ":"
        + ids.topicId();
  }

  @Override
  public CompletionStage<Void> record(TopicPartition partition, long keepFrom, List<Delivered> delivered) {
    TopicIdentity.Ids ids = assigned.get(partition);
    if (delivered.isEmpty() || ids == null) {
      // Unknown ids: written under none, the deliveries are not vouched for (called again).
      return CompletableFuture.completedFuture(null);
    }
    List<String> args = new ArrayList<>(delivered.size() + 4);
    args.add("add");
    args.add(Long.toString(TTL_MILLIS));
    args.add(Long.toString(keepFrom));
    args.add(Integer.toString(MAX_ENTRIES));
    for (Delivered d : delivered) {
      args.add(d.offset() + ":" + d.status() + ":" + d.attempts());
    }
    try {
      return script.run(commands, new String[] {redisKey(group, partition, ids)}, args.toArray(String[]::new), () -> {})
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

  /**
   * Looks up the partition's ids now (it is being assigned), writes its deliveries under them
   * from now on, and reads what that incarnation's log holds. Until the ids are told, or if they
   * cannot be, nothing is written for the partition and the stage fails.
   */
  @Override
  public CompletionStage<Map<Long, Delivered>> since(TopicPartition partition, long from) {
    assigned.remove(partition);
    return identity.of(partition.topic()).thenCompose(ids -> {
      assigned.put(partition, ids);
      return script.run(commands, new String[] {redisKey(group, partition, ids)},
          new String[] {"since", Long.toString(from)}, () -> {});
    }).thenApply(RedisDeliveredLog::parse);
  }

  /**
   * Reads the entries from {@code from} to {@code to} under the ids the partition's last
   * assignment looked up ({@link #since}); none when they were not told.
   */
  @Override
  public CompletionStage<Map<Long, Delivered>> between(TopicPartition partition, long from, long to) {
    TopicIdentity.Ids ids = assigned.get(partition);
    if (ids == null) {
      return CompletableFuture.completedFuture(Map.of());
    }
    return script.run(commands, new String[] {redisKey(group, partition, ids)},
        new String[] {"since", Long.toString(from), Long.toString(to)}, () -> {})
        .thenApply(RedisDeliveredLog::parse);
  }

  static Map<Long, Delivered> parse(List<Object> members) {
    Map<Long, Delivered> delivered = new HashMap<>();
    for (Object m : members) {
      String[] parts = String.valueOf(m).split(":");
      if (parts.length == 3) {
        try {
          Delivered d = new Delivered(Long.parseLong(parts[0]), Integer.parseInt(parts[1]),
              Integer.parseInt(parts[2]));
          delivered.merge(d.offset(), d, (a, b) -> a.settled() ? a : b); // settled says all
        } catch (NumberFormatException e) {
          // not ours: ignored (the record is called again, as without the log)
        }
      }
    }
    return delivered;
  }
}
