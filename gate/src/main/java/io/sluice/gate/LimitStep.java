package io.sluice.gate;

import io.sluice.config.ProviderConfig;
import io.sluice.config.RedisDownPolicy;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.DelayLadder;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.GateLimiter;
import io.sluice.gate.limiter.LimiterDecision;
import io.sluice.gate.limiter.LocalBuckets;
import io.sluice.gate.limiter.MultiRuleLimiter;
import io.sluice.gate.limiter.RuleBucket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges the event to its tenant's bucket and routes it:
 * <ul>
 *   <li>admit: to {@code sluice.ready} ({@code sluice.ready.high} for the {@code high} class), stamped with the admission time;
 *   <li>reserved (charged ahead): to the delay step that fits, {@code sluice-paid: true}, returning
 *       to {@code sluice.ready} at its not-before without passing the gate again;
 *   <li>queued (beyond the horizon, not charged): to the delay step that fits, returning to
 *       {@code sluice.regate} at its turn holding a ticket ({@code sluice-ticket});
 *   <li>Redis unavailable: the provider's {@code onRedisDown} policy ({@code fail_closed} holds the
 *       event back one ladder step and returns it to {@code sluice.regate}).
 * </ul>
 * A ticket is believed because only Sluice writes {@code regate}: on {@code inbound} every
 * {@code sluice-*} header was stripped before this node ({@link StripHeadersStep}).
 * Every decision with a time carries it as {@code sluice-eta} ({@link AdmissionEta}: when the
 * event is expected at its provider by its quota); an event whose {@code deadline} is before it
 * is dead at once, {@code deadline_unreachable}, rather than expiring after its wait. With
 * {@code gate.receipts}, each decision is also written as a {@link Receipt}.
 * In shadow mode (the provider's or the tenant's {@code shadow}: either is enough) every decision
 * is made and counted, and the event is admitted anyway; the limiter charges the bucket only what
 * it holds now, so shadow traffic never reserves future units or lengthens the bucket's line (an
 * enforced event after it waits only for what the admitted-and-charged ones took).
 */
final class LimitStep {
  private final Topics topics;
  private final DelayLadder ladder;
  private final GateLimiter limiter;
  private final MultiRuleLimiter rulesLimiter;
  private final LocalBuckets local;
  private final Clock clock;
  private final GateListener listener;
  /** The configuration in force: which providers dead-letter a dead head's followers. */
  private final Supplier<SluiceConfig> live;
  /** Gives up the turn of an ordered event dead-lettered here. */
  private final OrderStep order;
  /** Header values that never change, encoded once ({@link OutgoingHeaders}). */
  private final byte[] toReady;
  private final byte[] toRegate;
  private final byte[] rateLimited = OutgoingHeaders.encoded(Reason.RATE_LIMITED.code());
  private final byte[] redisUnavailable = OutgoingHeaders.encoded(Reason.REDIS_UNAVAILABLE.code());
  /** Each ladder step's sink, named once. */
  private final Map<Duration, String> delaySinks = new HashMap<>();
  private final OutgoingHeaders.Now nowDecimal = new OutgoingHeaders.Now();
  /** Each tier's name as a header value (a handful; a reload may add one). */
  private final Map<String, byte[]> tierValues = new HashMap<>();
  /** Whether each decision is also written as a {@link Receipt} (a restart changes it). */
  private final boolean receipts;
  /** The terms of the configuration last seen; replaced when a reload replaces it. */
  private LimitTerms terms;
  private ProcessorContext<byte[], Object> context;
  /** The same context, for routing an event later as its own record (see {@link #complete}). */
  private InternalProcessorContext<byte[], Object> internal;
  private ProcessorNode<?, ?, ?, ?> node;
  /** Events decided or waiting for the store, in the order they came. */
  private final PendingEvents pending;

  LimitStep(
      Supplier<SluiceConfig> live, Topics topics, GateLimiter limiter,
      MultiRuleLimiter rulesLimiter, LocalBuckets local, Clock clock, GateListener listener, OrderStep order) {
    this.order = order;
    this.live = live;
    this.topics = topics;
    // The ladder needs a restart to change (ReloadScope).
    this.ladder = new DelayLadder(live.get().ladder());
    this.receipts = live.get().gate().receipts();
    this.limiter = limiter;
    this.rulesLimiter = rulesLimiter;
    this.local = local;
    this.clock = clock;
    this.listener = listener;
    this.toReady = OutgoingHeaders.encoded(topics.ready());
    this.toRegate = OutgoingHeaders.encoded(topics.regate());
    ladder.steps().forEach(step -> delaySinks.put(step, GateNodes.delaySink(step)));
    this.pending = new PendingEvents(limiter, rulesLimiter, this::complete);
  }

  void init(ProcessorContext<byte[], Object> context) {
    // A revived task (closed dirty, then started again with this same object) reads its input
    // again from the last commit: nothing decided before may be routed now (see close).
    discardPending();
    this.context = context;
    // Forwards go through the decisions' spans when tracing is on; the record context is Kafka Streams'.
    this.internal = (InternalProcessorContext<byte[], Object>) GateSpans.kafkaStreams(context);
    this.node = internal.currentNode();
    PendingFlush flush = context.getStateStore(PendingFlush.NAME);
    flush.onFlush(this::drainAll);
    // When no more events come, a batch short of full goes out within this long, and events
    // whose answers are in are routed without waiting for the next commit.
    context.schedule(DRAIN_EVERY, PunctuationType.WALL_CLOCK_TIME, t -> pending.sendAndDrainReady());
  }

  /**
   * The event's decision under {@code config}, where the tenant's entry is {@code entry}, in
   * order: an event whose bucket answers it here (a lease, places in line, an open circuit) goes
   * at once unless events before it still wait; one that needs the store joins the batch of
   * calls sent together ({@link PendingEvents}).
   */
  void limit(Record<byte[], byte[]> record, GateEvent in, SluiceConfig config, TenantConfig entry) {
    String provider = in.event().provider();
    // One snapshot for the whole decision (the one every step of this event read): a reload
    // between two events never mixes files.
    if (terms == null || terms.config() != config) {
      terms = new LimitTerms(config);
    }
    LimitTerms.Terms bucket = terms.of(provider, entry, in.tier());
    if (bucket == null) {
      // The tier was resolved under the configuration before a reload that removed the tenant.
      Entry e = new Entry(record, in, internal.recordContext(), null, null, false, false, List.of(), null);
      e.decided(UNKNOWN_TENANT);
      pending.add(e);
      pending.drainReady();
      return;
    }
    ProviderConfig providerConfig = config.providers().get(provider);
    BucketSpec spec = bucket.spec();
    BucketKey key = new BucketKey(provider, in.event().tenant());
    Header ticket = record.headers().lastHeader(HeaderNames.TICKET);
    boolean holder = ticket != null && ticket.value() != null;
    boolean shadow = bucket.shadow();

    listener.decided(provider, in.tier());
    List<RuleBucket> rules = bucket.mayHaveRules() ? ChargedRules.of(config, entry, in.event(), in.tier()) : List.of();
    Entry e = new Entry(record, in, internal.recordContext(), providerConfig, key, holder, shadow, rules, spec);
    e.begin();
    pending.add(e);
    pending.drainReady();
  }

  void close() {
    // A clean close was preceded by a commit, which drained every pending event. A dirty one
    // (a produce failure, a fenced producer) aborts the transaction and the input is read again,
    // by this task revived with this processor or by another instance: the events still pending
    // are dropped here, else a revived task would route them beside their re-read selves, each
    // admitted twice (issue 34, GateTaskRevivalIT).
    discardPending();
  }

  private void discardPending() {
    int dropped = pending.discardAll();
    if (dropped > 0) {
      LOG.info("gate: dropped {} events pending at a dirty close of the task; they are read again", dropped);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(LimitStep.class);

  private static final LimiterDecision UNKNOWN_TENANT = new LimiterDecision.Unavailable("unknown tenant");
  /** How often pending events are sent and drained when no more come. */
  private static final Duration DRAIN_EVERY = Duration.ofMillis(5);

  private void drainAll() {
    pending.drainAll();
  }

  /** One event on its way through the limit node, with what its decision needs. */
  private final class Entry extends PendingEvents.Event {
    final Record<byte[], byte[]> record;
    final GateEvent in;
    final ProcessorRecordContext recordContext;
    final ProviderConfig providerConfig;
    final BucketKey key;
    final boolean holder;
    final boolean shadow;
    /** Its quota rules when it has more than one (all or none), else empty. */
    final List<RuleBucket> rules;
    final boolean multi;
    final BucketSpec spec;

    Entry(Record<byte[], byte[]> record, GateEvent in, ProcessorRecordContext recordContext,
        ProviderConfig providerConfig, BucketKey key, boolean holder, boolean shadow,
        List<RuleBucket> rules, BucketSpec spec) {
      this.record = record;
      this.in = in;
      this.recordContext = recordContext;
      this.providerConfig = providerConfig;
      this.key = key;
      this.holder = holder;
      this.shadow = shadow;
      this.rules = rules;
      this.multi = !rules.isEmpty();
      this.spec = spec;
    }

    @Override
    void begin() {
      int cost = in.event().cost();
      if (multi) {
        calls(rulesLimiter.begin(key.provider(), rules, cost, shadow));
      } else {
        calls(limiter.begin(key, spec, cost, holder, shadow));
      }
    }

    @Override
    BucketKey key() {
      // Rule buckets keep nothing at this instance between calls: a multi-rule event waits for
      // no other event's call.
      return multi ? null : key;
    }
  }

  /** Routes an event whose decision is in, as its own record (its offset, partition, topic). */
  private void complete(PendingEvents.Event event) {
    Entry e = (Entry) event;
    ProcessorNode<?, ?, ?, ?> current = internal.currentNode();
    ProcessorRecordContext currentRecord = internal.recordContext();
    internal.setCurrentNode(node);
    internal.setRecordContext(e.recordContext);
    try {
      route(e);
    } finally {
      internal.setCurrentNode(current);
      internal.setRecordContext(currentRecord);
    }
  }

  private void route(Entry e) {
    Record<byte[], byte[]> record = e.record;
    GateEvent in = e.in;
    String provider = in.event().provider();
    if (e.decision() == UNKNOWN_TENANT) {
      listener.dead(Reason.UNKNOWN_TENANT);
      order.deadHere(record, in.event(), live.get());
      context.forward(DeadLetters.of(record, in.event(), in.raw(), Reason.UNKNOWN_TENANT,
          "tenant '" + in.event().tenant() + "' is no longer configured (a reload removed it) "
              + "and there is no defaultTier", in.event().id(), context, clock.millis()),
          GateNodes.DLQ_SINK);
      return;
    }
    LimiterDecision decision = e.decision();
    boolean shadow = e.shadow;
    long now = clock.millis();
    if (decision instanceof LimiterDecision.Unavailable) {
      decision = fallback(e.providerConfig.onRedisDown(), e.key, e.spec, in, now, shadow, e.multi);
      listener.redisFallback(provider, e.providerConfig.onRedisDown());
    }
    if (shadow && !(decision instanceof LimiterDecision.Admit)) {
      listener.shadowWouldDefer(provider, in.tier(), Math.max(0, wouldDeferUntil(decision, now) - now));
      decision = new LimiterDecision.Admit(now);
    }

    long eta = AdmissionEta.of(decision, e.spec, e.multi);
    if (AdmissionEta.unreachable(eta, in.event().deadline())) {
      // What it was charged (a reservation) is spent: the quota's time it would have used.
      listener.dead(Reason.DEADLINE_UNREACHABLE);
      context.forward(DeadLetters.of(record, in.event(), in.raw(), Reason.DEADLINE_UNREACHABLE,
          "expected at its provider at " + Instant.ofEpochMilli(eta) + " by its quota, after "
              + "its deadline " + in.event().deadline(), in.event().id(), context, now),
          GateNodes.DLQ_SINK);
      receipt(record, in, "dead", eta, Reason.DEADLINE_UNREACHABLE, now);
      return;
    }
    byte[] tier = tierValues.computeIfAbsent(in.tier(), OutgoingHeaders::encoded);
    if (decision instanceof LimiterDecision.Admit admit) {
      listener.admitted(provider, in.tier(), in.event().cost());
      Headers headers = OutgoingHeaders.withPriority(OutgoingHeaders.withEta(
          OutgoingHeaders.admitted(record.headers(), tier, nowDecimal.decimal(now)), eta),
          in.event().priorityClass());
      // A high event to ready.high, so that it is never read behind its tenant's lows (ReadyTopic).
      context.forward(new Record<>(record.key(), (Object) in.raw(), admit.atMillis(), headers),
          GateNodes.readySink(in.event().priorityClass()));
      receipt(record, in, "admitted", eta, null, now);
    } else if (decision instanceof LimiterDecision.Reserved reserved) {
      listener.deferred(provider, in.tier(), Reason.RATE_LIMITED, true);
      defer(record, in, tier, reserved.notBeforeMillis(), toReady, true, rateLimited, -1, now, eta);
      receipt(record, in, "reserved", eta, Reason.RATE_LIMITED, now);
    } else if (decision instanceof LimiterDecision.Queued queued) {
      listener.deferred(provider, in.tier(), Reason.RATE_LIMITED, false);
      defer(record, in, tier, queued.notBeforeMillis(), toRegate, false, rateLimited,
          queued.notBeforeMillis(), now, eta);
      receipt(record, in, "queued", eta, Reason.RATE_LIMITED, now);
    } else {
      // fail_closed: hold the event back one ladder step and gate it again.
      listener.deferred(provider, in.tier(), Reason.REDIS_UNAVAILABLE, false);
      long retry = now + ladder.steps().get(0).toMillis();
      defer(record, in, tier, retry, toRegate, false, redisUnavailable, -1, now, -1);
      receipt(record, in, "held", -1, Reason.REDIS_UNAVAILABLE, now);
    }
  }

  /** The decision's {@link Receipt}, with {@code gate.receipts} ({@code eta} &lt; 0: none). */
  private void receipt(Record<byte[], byte[]> record, GateEvent in, String decision, long eta,
      Reason reason, long now) {
    if (receipts) {
      Receipt r = new Receipt(in.event().id(), in.event().tenant(), in.event().provider(),
          decision, eta < 0 ? null : eta, reason);
      context.forward(new Record<>(record.key(), (Object) r.json(), now,
          new RecordHeaders()), GateNodes.RECEIPTS_SINK);
    }
  }
  private LimiterDecision fallback(
      RedisDownPolicy policy, BucketKey key, BucketSpec spec, GateEvent in, long now, boolean shadow,
      boolean multi) {
    return switch (policy) {
      case FAIL_OPEN -> new LimiterDecision.Admit(now);
      case FAIL_CLOSED -> new LimiterDecision.Unavailable("fail_closed");
      // A multi-rule event falls back on its (provider, tenant) rule alone, at this instance's
      // share; its other rules are not enforced while Redis is down, and what it was charged
      // locally is not replayed into Redis (its Redis bucket is another key; see the README).
      case LOCAL -> multi
          ? local.decide(key, spec, in.event().cost(), now, shadow, null)
          : local(key, spec, in.event().cost(), now, shadow);
    };
  }

  /**
   * The local bucket's decision, started from Redis's last answer; its charge is owed to Redis.
   * An event beyond the horizon was not charged ({@link LimiterDecision.Unavailable}): nothing owed.
   */
  private LimiterDecision local(BucketKey key, BucketSpec spec, int cost, long now, boolean shadow) {
    LimiterDecision decision = local.decide(key, spec, cost, now, shadow, limiter.known(key),
        limiter.held(key));
    if (!shadow && !(decision instanceof LimiterDecision.Unavailable)) {
      limiter.owe(key, cost);
    }
    return decision;
  }

  /** When a decision other than Admit would have let the event go (fail_closed: after its hold). */
  private long wouldDeferUntil(LimiterDecision decision, long now) {
    if (decision instanceof LimiterDecision.WouldDefer w) {
      return w.notBeforeMillis();
    }
    if (decision instanceof LimiterDecision.Reserved r) {
      return r.notBeforeMillis();
    }
    if (decision instanceof LimiterDecision.Queued q) {
      return q.notBeforeMillis();
    }
    return now + ladder.steps().get(0).toMillis();
  }

  /**
   * To the delay step that fits, with its routing headers ({@code ticket} &lt; 0: none) and its
   * expected time at the provider ({@code eta} &lt; 0: none).
   */
  private void defer(
      Record<byte[], byte[]> record, GateEvent in, byte[] tier, long notBefore,
      byte[] returnTo, boolean paid, byte[] reason, long ticket, long now, long eta) {
    Duration step = ladder.stepFor(notBefore - now);
    // The class travels in a header: a paid event returns to ready, and the relay, which reads no
    // value, sends a high one to ready.high instead (ReadyTopic.releaseTo).
    Headers headers = OutgoingHeaders.withPriority(OutgoingHeaders.withEta(OutgoingHeaders.deferred(
        record.headers(), tier, nowDecimal.decimal(now), notBefore, returnTo, reason, paid, ticket),
        eta), in.event().priorityClass());
    context.forward(new Record<>(record.key(), (Object) in.raw(), now, headers), delaySinks.get(step));
  }
}
