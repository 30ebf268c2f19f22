package io.sluice.app.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.config.DelayText;
import io.sluice.config.Durations;
import io.sluice.config.ProviderConfig;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.dispatcher.dispatch.Waits;
import io.sluice.dispatcher.dispatch.WaitsStore;
import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.feedback.RedisLearnedLimitStore;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.redis.SlotMarkers;
import io.sluice.redis.tenants.StoredTenant;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.TokenBucketMath;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What {@code sluice status} and {@code GET /admin/status} show, read from what Redis and Kafka
 * already hold (no role needs to run): per provider its configured and paced rate, the limits
 * learned from its answers and its pauses; the events waiting in inbound, regate, each delay step
 * and ready (consumer lag, {@link ConsumerLag}); the dead letters of the last hour by reason; per
 * tenant asked for, its tier, its bucket level toward each provider, and how long its events
 * wait there and when its backlog is expected through ({@link TenantWait}).
 *
 * <p>What only a running instance knows (events buffered, calls in flight, its Redis circuit) is
 * added by {@code /admin/status} as {@code "instance"}; {@code sluice status} says it is not shown.
 * Each part that fails to read says so in {@code "errors"} and the rest is still shown.
 *
 * <p>Bounds: at most {@value #MAX_DEAD_LETTERS} dead letters are read (beyond, the counts say
 * {@code "truncated": true}); each request to Redis or Kafka waits {@link #TIMEOUT} at most. The
 * Kafka parts may come from a {@link StatusCache} shared by an instance's requests (each then says
 * when it was read, {@code "asOf"}).
 */
public final class StatusReader {
  /** Most dead letters read for the last hour's counts. */
  static final int MAX_DEAD_LETTERS = 10_000;
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Redis's clock, a bucket's hash and its slot's marker, read at one instant. */
  static final String BUCKET_SCRIPT = "local t = redis.call('TIME') "
      + "return {t[1], t[2], redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or false}";

  /** Redis's TIME and one slot's marker (null when missing). */
  static final String MARKER_SCRIPT = "local t = redis.call('TIME') "
      + "return {t[1], t[2], redis.call('GET', KEYS[1]) or false}";

  private final SluiceConfig config;
  private final RedisScriptingAsyncCommands<String, String> redis;
  private final StatusCache kafka;
  private final Clock clock;

  /**
   * A reader that reads everything anew (a one-off {@code sluice status}).
   *
   * @param dlqReader a consumer without a group (assigned, never committing), closed after use
   */
  public StatusReader(SluiceConfig config, RedisScriptingAsyncCommands<String, String> redis,
      Admin admin, Supplier<Consumer<byte[], byte[]>> dlqReader, Clock clock) {
    this(config, redis, StatusCache.uncached(() -> config, admin, dlqReader, clock), clock);
  }

  /**
   * A reader whose Kafka parts (consumer lag, the last hour's dead letters) come from
   * {@code kafka}, shared by the requests of an instance ({@code GET /admin/status}).
   */
  public StatusReader(SluiceConfig config, RedisScriptingAsyncCommands<String, String> redis,
      StatusCache kafka, Clock clock) {
    this.config = config;
    this.redis = redis;
    this.kafka = kafka;
    this.clock = clock;
  }

  /**
   * The status, as JSON.
   *
   * @param provider only this provider, if given
   * @param tenant   this tenant's tier and buckets, if given
   */
  public ObjectNode read(Optional<String> provider, Optional<String> tenant) {
    ObjectNode out = JSON.createObjectNode();
    out.put("at", clock.instant().toString());
    ObjectNode errors = JSON.createObjectNode();
    PauseRules pauses = PauseRules.NONE;
    try {
      pauses = await(new PauseStore(redis).read());
    } catch (RuntimeException e) {
      errors.put("pauses", message(e));
    }
    List<Map<String, Waits>> waits = List.of();
    try {
      waits = await(new WaitsStore(redis).read());
    } catch (RuntimeException e) {
      errors.put("waits", message(e));
    }
    out.set("providers", providers(provider, pauses, waits, errors));
    ArrayNode all = out.putArray("pauses");
    pauses.all().forEach(p -> all.add(pause(p)));
    try {
      redisLoss().ifPresent(loss -> out.set("redisLoss", loss));
    } catch (RuntimeException e) {
      errors.put("redisLoss", message(e));
    }
    kafka.waiting().into(out, errors, "waiting");
    kafka.deadLetters().into(out, errors, "deadLettersLastHour");
    List<Map<String, Waits>> told = waits;
    tenant.ifPresent(t -> {
      try {
        out.set("tenant", tenant(t, provider, told));
      } catch (RuntimeException e) {
        errors.put("tenant", message(e));
      }
    });
    if (!errors.isEmpty()) {
      out.set("errors", errors);
    }
    return out;
  }

  /**
   * A loss of Redis's data that still holds tenants back ({@link RedisLoss}), from one slot marker
   * in 256 and Redis's clock (the markers' times are on it).
   */
  private Optional<ObjectNode> redisLoss() {
    long reach = TokenBucketMath.reachMicros(new BucketSpec(1, 1,
        config.reservationHorizon().toNanos() / 1000));
    long refill = 0;
    for (ProviderConfig p : config.providers().values()) {
      for (Quota q : p.quotas().values()) {
        refill = Math.max(refill, (long) (q.capacity() / q.refill().perSecond() * 1_000_000));
      }
    }
    return redisLoss(redis, reach, refill).map(loss -> {
      ObjectNode o = JSON.createObjectNode();
      o.put("lostAt", instant(loss.lostAtMicros()));
      o.put("slotsLost", loss.slotsLost());
      o.put("slotsSampled", loss.slotsSampled());
      o.put("admissionsFrom", instant(loss.admissionsFromMicros()));
      o.put("refilledBy", instant(loss.refilledByMicros()));
      return o;
    });
  }

  /** {@link RedisLoss#judge} on {@link RedisLoss#SAMPLED_SLOTS} markers read with Redis's TIME. */
  static Optional<RedisLoss> redisLoss(RedisScriptingAsyncCommands<String, String> redis, long reachMicros,
      long refillMicros) {
    List<String> all = SlotMarkers.all();
    List<CompletionStage<List<Object>>> reads = new ArrayList<>();
    for (int i = 0; i < all.size(); i += all.size() / RedisLoss.SAMPLED_SLOTS) {
      reads.add(redis.eval(MARKER_SCRIPT, ScriptOutputType.MULTI, all.get(i)));
    }
    long now = 0;
    List<Optional<String>> markers = new ArrayList<>();
    for (CompletionStage<List<Object>> read : reads) {
      List<Object> reply = await(read);
      now = Math.max(now, Long.parseLong(String.valueOf(reply.get(0))) * 1_000_000
          + Long.parseLong(String.valueOf(reply.get(1))));
      markers.add(Optional.ofNullable(reply.size() > 2 ? reply.get(2) : null).map(String::valueOf));
    }
    return RedisLoss.judge(markers, now, reachMicros, refillMicros);
  }

  private static String instant(long micros) {
    return Instant.ofEpochSecond(micros / 1_000_000, micros % 1_000_000 * 1000).toString();
  }

  private ObjectNode providers(Optional<String> only, PauseRules pauses,
      List<Map<String, Waits>> waits, ObjectNode errors) {
    ObjectNode out = JSON.createObjectNode();
    LimitLearner learner = new LimitLearner(new RedisLearnedLimitStore(redis),
        clock::millis, () -> 0.5, LimitLearner.Listener.NONE);
    learner.bound(LimitLearner.boundsOf(config));
    List<String> names = new ArrayList<>(new TreeMap<>(config.providers()).keySet());
    names.removeIf(n -> only.isPresent() && !only.get().equals(n));
    try {
      learner.preload(names, TIMEOUT);
    } catch (RuntimeException e) {
      errors.put("learnedLimits", message(e));
    }
    for (String name : names) {
      ProviderConfig p = config.providers().get(name);
      ObjectNode n = out.putObject(name);
      double configured = p.rate().perSecond();
      n.put("configuredRate", configured);
      n.put("pacedRate", learner.ratePerSecond(name, configured));
      // What its producers may ask (deliverAt/delay at most this far ahead; ids kept this long).
      n.put("maxDelay", DelayText.format(p.intake().maxDelay()));
      if (p.intake().dedups()) {
        n.put("dedupWindow", DelayText.format(p.intake().dedupWindow()));
      }
      if (p.intake().orders()) {
        // Events of one orderingKey called one at a time, in order; what a dead head does.
        n.put("ordering", "perKey");
        n.put("orderingOnDeadHead", p.intake().ordering().deadLetterFollowers() ? "deadLetter" : "release");
        n.put("maxOrderingKeys", p.intake().ordering().maxKeysInFlight());
      }
      ArrayNode limits = n.putArray("learnedLimits");
      for (LearnedLimit l : learner.current(name)) {
        ObjectNode o = limits.addObject();
        o.put("name", LimitLearner.cut(l.name()));
        o.put("unit", l.unit().label());
        o.put("quota", l.quota());
        o.put("windowMillis", l.windowMillis());
        o.put("expiresAt", Instant.ofEpochMilli(l.expiresAtMillis()).toString());
      }
      n.put("paused", pauses.pausesAllOf(name));
      // What its events wait for now, from every live dispatcher (WaitsStore).
      n.set("waits", WaitsView.of(name, waits));
      ArrayNode concerning = n.putArray("pauses");
      pauses.concerning(name).forEach(x -> concerning.add(pause(x)));
    }
    return out;
  }

  /** Events waiting per topic (the lag of the group that reads it), and per group and topic. */
  static ObjectNode waiting(SluiceConfig config, Admin admin) {
    ObjectNode out = JSON.createObjectNode();
    ArrayNode lags = out.putArray("lag");
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    ObjectNode byStage = out.putObject("byStage");
    for (ConsumerLag.Lag l : ConsumerLag.read(admin, ConsumerLag.groups(config))) {
      ObjectNode o = lags.addObject();
      o.put("group", l.group());
      o.put("topic", l.topic());
      o.put("records", l.records());
      byStage.put(stage(topics, l.topic()), l.records());
    }
    return out;
  }

  /** {@code inbound}, {@code regate}, {@code delay 5s}, {@code ready}, {@code ready.high}: a topic as a stage. */
  static String stage(Topics topics, String topic) {
    if (topic.equals(topics.inbound())) {
      return "inbound";
    }
    if (topic.equals(topics.regate())) {
      return "regate";
    }
    if (topic.equals(topics.ready())) {
      return "ready";
    }
    if (topic.equals(topics.readyHigh())) {
      return "ready.high";
    }
    for (Duration step : topics.ladder()) {
      if (topic.equals(topics.delay(step))) {
        return "delay " + Durations.format(step);
      }
    }
    return topic;
  }

  /** The dead letters written in the last hour, counted by reason (at most MAX_DEAD_LETTERS read). */
  static ObjectNode deadLetters(SluiceConfig config,
      Supplier<Consumer<byte[], byte[]>> dlqReader, Clock clock) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    ObjectNode out = JSON.createObjectNode();
    Map<String, Long> byReason = new TreeMap<>();
    boolean truncated = false;
    try (Consumer<byte[], byte[]> c = dlqReader.get()) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo p : c.partitionsFor(topics.dlq(), TIMEOUT)) {
        parts.add(new TopicPartition(p.topic(), p.partition()));
      }
      c.assign(parts);
      long since = clock.millis() - TimeUnit.HOURS.toMillis(1);
      Map<TopicPartition, Long> query = new HashMap<>();
      parts.forEach(tp -> query.put(tp, since));
      Map<TopicPartition, OffsetAndTimestamp> from = c.offsetsForTimes(query, TIMEOUT);
      Map<TopicPartition, Long> ends = c.endOffsets(parts, TIMEOUT);
      Map<TopicPartition, Long> left = new HashMap<>();
      for (TopicPartition tp : parts) {
        OffsetAndTimestamp o = from.get(tp);
        long start = o == null ? ends.get(tp) : o.offset();
        c.seek(tp, start);
        if (ends.get(tp) > start) {
          left.put(tp, ends.get(tp));
        }
      }
      long read = 0;
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (!left.isEmpty() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() + 1 >= left.getOrDefault(tp, Long.MAX_VALUE)) {
            left.remove(tp);
          }
          if (r.timestamp() < since || ++read > MAX_DEAD_LETTERS) {
            continue;
          }
          String reason = HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("unknown");
          byReason.merge(OperatorText.clean(reason, 40), 1L, Long::sum);
        }
        // Transaction markers end a partition without a record at its end offset.
        left.keySet().removeIf(tp -> c.position(tp) >= left.get(tp));
        if (read > MAX_DEAD_LETTERS) {
          truncated = true;
          break;
        }
      }
      truncated |= !left.isEmpty();
    }
    ObjectNode counts = out.putObject("byReason");
    byReason.forEach(counts::put);
    out.put("truncated", truncated);
    return out;
  }

  /**
   * A tenant's tier and, per provider, its bucket's level now (capacity when untouched), and how
   * long its events wait and when its backlog is expected through ({@link TenantWait}).
   */
  private ObjectNode tenant(String tenant, Optional<String> only,
      List<Map<String, Waits>> waits) {
    PauseScope.checkName("tenant", tenant);
    ObjectNode out = JSON.createObjectNode();
    out.put("name", tenant);
    // The registry's record over the file's entry, as the gate decides it (one script call).
    Optional<StoredTenant> stored =
        await(new TenantRegistry(redis).get(tenant)).tenant();
    TenantConfig entry = TenantRecord.effective(config,
        tenant, stored.map(StoredTenant::record).orElse(null));
    Optional<String> tier = config.tierOf(entry);
    out.put("tier", tier.orElse(null));
    out.put("listed", entry != null);
    out.put("source", entry == null ? (tier.isPresent() ? "default" : null)
        : stored.isPresent() && config.tiers().containsKey(stored.get().record().tier())
            ? "registry" : "yaml");
    ObjectNode buckets = out.putObject("buckets");
    ObjectNode waiting = out.putObject("waiting");
    for (String provider : new TreeMap<>(config.providers()).keySet()) {
      if (only.isPresent() && !only.get().equals(provider)) {
        continue;
      }
      Optional<Quota> quota = config.quotaOf(provider, entry);
      if (quota.isEmpty()) {
        waiting.set(provider, TenantWait.of(tenant, tier.orElse(null), provider, waits, null,
            clock.millis()));
        continue;
      }
      ObjectNode b = buckets.putObject(provider);
      b.put("capacity", quota.get().capacity());
      b.put("refillPerSecond", quota.get().refill().perSecond());
      String key = new BucketKey(provider, tenant).redisKey();
      List<Object> reply = await(redis.<List<Object>>eval(BUCKET_SCRIPT, ScriptOutputType.MULTI,
          key, SlotMarkers.markerOf(key)));
      BucketSpec spec = BucketSpec.of(quota.get(), config.reservationHorizon());
      b.put("level", level(reply, spec));
      waiting.set(provider, TenantWait.of(tenant, tier.orElse(null), provider, waits,
          dueMicros(reply, spec) / 1000, clock.millis()));
    }
    return out;
  }

  /**
   * The bucket's level now, as the gate would decide by it ({@link BucketLevel}), from the reply of
   * {@link #BUCKET_SCRIPT}: Redis's TIME, the bucket's hash as a flat list of fields and values,
   * the slot's marker (null when missing). Negative: units reserved ahead for events waiting in
   * the ladder.
   */
  static double level(List<Object> reply, BucketSpec spec) {
    return level(reply, spec, Long.parseLong(String.valueOf(reply.get(0))) * 1_000_000
        + Long.parseLong(String.valueOf(reply.get(1))));
  }

  /** When one unit asked at the reply's time would be due ({@link BucketLevel#dueMicros}). */
  static long dueMicros(List<Object> reply, BucketSpec spec) {
    return dueMicros(reply, spec, Long.parseLong(String.valueOf(reply.get(0))) * 1_000_000
        + Long.parseLong(String.valueOf(reply.get(1))));
  }

  /** {@link #dueMicros(List, BucketSpec)} at {@code now} rather than the reply's time. */
  static long dueMicros(List<Object> reply, BucketSpec spec, long now) {
    Map<String, String> fields = fields(reply);
    Object marker = reply.size() > 3 ? reply.get(3) : null;
    return BucketLevel.dueMicros(fields, marker == null ? null : String.valueOf(marker), spec, now);
  }

  /** {@link #level(List, BucketSpec)} at {@code now} rather than the reply's time. */
  static double level(List<Object> reply, BucketSpec spec, long now) {
    Map<String, String> fields = fields(reply);
    Object marker = reply.size() > 3 ? reply.get(3) : null;
    return BucketLevel.at(fields, marker == null ? null : String.valueOf(marker), spec, now);
  }

  /** The bucket's hash in the reply, from its flat list of fields and values. */
  private static Map<String, String> fields(List<Object> reply) {
    Map<String, String> fields = new HashMap<>();
    List<?> flat = (List<?>) reply.get(2);
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      fields.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
    }
    return fields;
  }

  /** A consumer for the dead letters' counts: no group, never committing, read_committed. */
  public static Consumer<byte[], byte[]> deadLetterReader(SluiceConfig c) {
    return new KafkaConsumer<>(c.kafka().clientProperties(
        Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.CLIENT_ID_CONFIG, "sluice-status")),
        new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
  }

  static ObjectNode pause(Pause p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("provider", p.scope().provider().orElse(null));
    o.put("tenant", p.scope().tenant().orElse(null));
    o.put("by", p.by());
    o.put("at", p.at().toString());
    o.put("reason", p.reason());
    return o;
  }

  private static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Redis did not answer: " + (e.getCause() == null ? e : e.getCause()));
    }
  }

  static String message(RuntimeException e) {
    return OperatorText.clean(String.valueOf(e.getMessage()), 300);
  }
}
