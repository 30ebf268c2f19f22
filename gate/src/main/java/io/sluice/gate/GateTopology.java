package io.sluice.gate;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.GateLimiter;
import io.sluice.gate.limiter.LocalBuckets;
import io.sluice.gate.limiter.MultiRuleLimiter;
import java.time.Duration;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.Topology;

/**
 * The gate, as a Processor API topology with every node named: one processor node ({@link
 * GateProcessor}) whose four steps are plain calls, each step its own class:
 * <pre>
 *   inbound-source ─► [ strip-sluice-headers ─┐
 *   regate-source ──► [───────────────────────┴► validate ─► resolve-tier ─► limit ] ─► ready-sink        (sluice.ready)
 *                                                                              ├──────► ready-high-sink   (sluice.ready.high: class high)
 *                                                   │             │            ├──────► delay-sink-&lt;step&gt; (sluice.delay.&lt;step&gt;)
 *                                                   └─────────────┴────────────┴──────► dlq-sink          (sluice.dlq)
 *                                                                              └──────► receipts-sink     (sluice.receipts, with gate.receipts)
 *                      (the node "limit"; its store gate-pending-flush: PendingFlush)
 * </pre>
 * Producers write {@code inbound}, so every {@code sluice-*} header read there is stripped before
 * any node sees it; {@code regate} holds only Sluice's own returns (events queued with a ticket,
 * or held back while Redis was down), whose headers are believed. Both topics have the same
 * partitions and are keyed by tenant, so a tenant's events from both meet in one stream task.
 * Keys and values stay bytes end to end: every sink writes the original value bytes, and what
 * Sluice knows travels in headers. Each stream task gets its own limiter (leases and demand are
 * per task; tenants are partitioned by key), sharing the store and the circuit breaker.
 */
public final class GateTopology {
  private GateTopology() {}

  public static Topology build(GateWiring wiring) {
    SluiceConfig config = wiring.config();
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    Topology topology = new Topology();
    topology.addSource(
        GateNodes.SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.inbound());
    topology.addSource(
        GateNodes.REGATE_SOURCE, new ByteArrayDeserializer(), new ByteArrayDeserializer(), topics.regate());
    // One node, its steps (GateProcessor): strip, dedup, order and schedule (inbound only), validate, tier, limit.
    topology.addProcessor(
        GateNodes.LIMIT,
        () -> processor(wiring, topics, config),
        GateNodes.SOURCE, GateNodes.REGATE_SOURCE);
    topology.addStateStore(PendingFlush.builder(), GateNodes.LIMIT);

    ByteArraySerializer bytes = new ByteArraySerializer();
    topology.addSink(GateNodes.READY_SINK, topics.ready(), bytes, bytes, GateNodes.LIMIT);
    topology.addSink(GateNodes.READY_HIGH_SINK, topics.readyHigh(), bytes, bytes, GateNodes.LIMIT);
    for (Duration step : config.ladder()) {
      topology.addSink(GateNodes.delaySink(step), topics.delay(step), bytes, bytes, GateNodes.LIMIT);
    }
    topology.addSink(GateNodes.DLQ_SINK, topics.dlq(), bytes, bytes, GateNodes.LIMIT);
    topology.addSink(GateNodes.OUTCOMES_SINK, topics.outcomes(), bytes, bytes, GateNodes.LIMIT);
    if (config.gate().receipts()) {
      topology.addSink(GateNodes.RECEIPTS_SINK, topics.receipts(), bytes, bytes, GateNodes.LIMIT);
    }
    return topology;
  }

  /** The gate's one node, with its steps; one per stream task. */
  private static GateProcessor processor(GateWiring wiring, Topics topics, SluiceConfig config) {
    OrderStep order = new OrderStep(wiring.orders(), wiring.clock(), wiring.listener());
    return new GateProcessor(topics.regate(), wiring.live(), wiring.tenants(),
        new ValidateStep(wiring.tenants(), wiring.clock(), wiring.listener()),
        new TierStep(wiring.clock(), wiring.listener()),
        new ScheduleStep(topics, new DelayLadder(config.ladder()), wiring.redisClock(), wiring.clock(),
            wiring.listener()),
        new DedupStep(wiring.seen(), wiring.clock(), wiring.listener()),
        order,
        new LimitStep(wiring.live(), topics, limiter(wiring),
            new MultiRuleLimiter(wiring.store(), wiring.circuit(), config.gate().redisTimeout(),
                wiring.nanoTime(), (provider, nanos) -> wiring.listener().redisCall(provider, nanos),
                config.gate().leaseTarget(), config.gate().maxLease()),
            new LocalBuckets(wiring.localShare(), wiring.nanoTime()), wiring.clock(), wiring.listener(), order),
        wiring.tracer(), wiring.clock());
  }

  private static GateLimiter limiter(GateWiring wiring) {
    var gate = wiring.config().gate();
    return new GateLimiter(
        wiring.store(),
        wiring.circuit(),
        wiring.nanoTime(),
        gate.redisTimeout(),
        gate.leaseTarget(),
        gate.maxLease(),
        (key, nanos) -> wiring.listener().redisCall(key.provider(), nanos));
  }
}
