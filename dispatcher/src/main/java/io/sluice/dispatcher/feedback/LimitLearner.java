package io.sluice.dispatcher.feedback;

import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.config.AnswerBounds;
import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Learns each provider's limits from its answers (every answer, 2xx and 429 alike) and shares them
 * with the other dispatcher instances through a {@link LearnedLimitStore}. The decisions are
 * {@link RateLimitHeaders}' and {@link LimitLearning}'s; this class keeps the state per provider,
 * writes what an answer stated, and reads back what the other instances learned ({@link #refresh},
 * every second).
 *
 * <p>What it learns is only ever used to lower a provider's limits below the configured ones
 * ({@link LearnedRate}, {@link LearningLimitSource}); a hold it returns pauses the provider for every instance through the
 * leak, like a {@code Retry-After} that cuts nothing.
 *
 * <p>Thread-safe: answers arrive on the HTTP client's threads, reads on the leak's.
 */
public final class LimitLearner {
  private static final Logger LOG = LoggerFactory.getLogger(LimitLearner.class);
  /** A limit stated again unchanged is written at most this often (its expiry moves on). */
  static final long REWRITE_MILLIS = 30_000;
  /** How often what was written is pruned, at most (a scan of the names written in 30 s). */
  static final long PRUNE_EVERY_MILLIS = 1_000;
  /** When {@link #written} was last pruned. */
  private volatile long prunedAt = Long.MIN_VALUE / 2;
  /** How often an instance reads what the others learned, at most. */
  static final long REFRESH_MILLIS = 1_000;
  /**
   * How often an instance reads what the others learned about one tenant's own endpoint, at most.
   * An endpoint's events are its tenant's, which reach one instance (the tenant's partition):
   * another instance learns about the same endpoint only around a partition moving, while a
   * thousand busy endpoints read every second would be a thousand Redis calls a second for
   * nothing. Its lane reads once as it opens (the first claim), then every 10 s.
   */
  public static final long ENDPOINT_REFRESH_MILLIS = 10_000;

  /** What the learner reports, for metrics. */
  public interface Listener {
    /** A rate-limit field of an answer could not be read (lower-case name). */
    default void malformedHeader(String provider, String header) {}

    /** The provider's learned limits are now these (after an answer or a refresh). */
    default void learned(String provider, Collection<LearnedLimit> limits) {}

    /** An answer said nothing (or too little) remains: the provider is held. */
    default void held(String provider, long holdMillis) {}

    /** A bound held back what an answer asked for ({@link Bound}); {@link #bounds} says which. */
    default void bounded(String provider, Bound bound) {}

    Listener NONE = new Listener() {};
  }

  /** What the bounds of {@link AnswerBounds} held back, for metrics and {@code /health}. */
  public enum Bound {
    /** A Retry-After longer than {@code maxRetryAfter} was clamped to it. */
    RETRY_AFTER,
    /** A hold (nothing remaining until a far reset, or a quota of 0) was clamped to {@code maxRetryAfter}. */
    HOLD,
    /** Learned limits would have paced below {@code learnedFloor} of the configured rate. */
    FLOOR;

    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** The last time a bound held an answer back, with a bounded description of it. */
  public record Bounded(Bound bound, long atMillis, String detail, long count) {}

  /** The longest provider header value a log line or {@code /health} shows. */
  static final int EXCERPT_CHARS = 80;
  /** The most header fields of one answer a log line or {@code /health} shows. */
  static final int EXCERPT_FIELDS = 6;
  /** A bound held back, or a change of the learned limits, is logged at most this often per provider. */
  static final long LOG_EVERY_MILLIS = 60_000;

  private final LearnedLimitStore store;
  private final LongSupplier clockMillis;
  private final DoubleSupplier uniform01;
  private final Listener listener;
  private final Map<String, Map<String, LearnedLimit>> learned = new ConcurrentHashMap<>();
  /** Each provider's bounds (reloadable); a provider not listed has the defaults. */
  private volatile Map<String, AnswerBounds> bounds = Map.of();
  /** What each bound last held back, by provider and bound. */
  private final Map<String, Map<Bound, Bounded>> boundedLast = new ConcurrentHashMap<>();
  /** When a bound of a provider was last logged, by provider and bound label. */
  private final Map<String, Long> loggedAt = new ConcurrentHashMap<>();
  /**
   * When each (provider, name) was last written to the store, and as what. Entries older than
   * {@link #REWRITE_MILLIS} decide nothing and are pruned ({@link #prune}).
   */
  private final Map<String, LearnedLimit> written = new ConcurrentHashMap<>();
  private final Map<String, Long> writtenAt = new ConcurrentHashMap<>();
  /** Moving average of each provider's call cost (weight 1/16 per answer). */
  private final Map<String, Double> typicalCost = new ConcurrentHashMap<>();
  /** When each provider's limits were last read from the store (this instance's clock). */
  private final Map<String, Long> refreshedAt = new ConcurrentHashMap<>();

  public LimitLearner(LearnedLimitStore store, LongSupplier clockMillis, DoubleSupplier uniform01,
      Listener listener) {
    this.store = store;
    this.clockMillis = clockMillis;
    this.uniform01 = uniform01;
    this.listener = listener;
  }

  /** A learner that keeps what it learns in this process only. */
  public static LimitLearner local(Listener listener) {
    return new LimitLearner(LearnedLimitStore.NONE, System::currentTimeMillis,
        () -> ThreadLocalRandom.current().nextDouble(), listener);
  }

  /**
   * Learns from one answer.
   *
   * @param cost the cost of the call this answers
   * @return how long to hold the provider (jitter included), when the answer says nothing remains
   */
  public OptionalLong answered(String provider, ProviderResult result, long cost) {
    typicalCost.merge(provider, (double) Math.max(1, cost), (avg, c) -> avg + (c - avg) / 16);
    AnswerBounds b = bounds(provider);
    if (!b.learn() || !(result instanceof ProviderResult.Answered a) || a.headers().isEmpty()) {
      return OptionalLong.empty();
    }
    long now = clockMillis.getAsLong();
    ProviderAnnouncement said = RateLimitHeaders.read(a.headers(), Instant.ofEpochMilli(now));
    for (String header : said.malformed()) {
      listener.malformedHeader(provider, header);
    }
    if (said.policies().isEmpty() && said.remaining().isEmpty()) {
      return OptionalLong.empty();
    }
    LimitLearning.Step step;
    boolean changed;
    synchronized (this) {
      Map<String, LearnedLimit> before = learned.getOrDefault(provider, Map.of());
      step = LimitLearning.learn(before, said, now, cost, uniform01, b.maxRetryAfterMillis());
      learned.put(provider, step.limits());
      changed = !sameLimits(before, step.limits());
    }
    share(provider, said, step.limits(), now);
    if (!step.unlisted().isEmpty()) {
      store.forget(provider, step.unlisted()).whenComplete((ok, error) -> {
        if (error != null) {
          LOG.debug("{}: could not forget unlisted policies ({})", provider, error.toString());
        }
      });
      if (dueToLog(provider, "unlisted", now)) {
        LOG.info("{}: an answer ({}) no longer lists the policies {}; forgotten", provider,
            excerpt(a), cut(String.join(", ", step.unlisted())));
      }
    }
    if (changed) {
      listener.learned(provider, step.limits().values());
      if (dueToLog(provider, "learned", now)) {
        LOG.info("{}: an answer ({}) changed the learned limits to {}", provider, excerpt(a),
            describe(step.limits().values()));
      }
    }
    step.askedHoldMillis().ifPresent(asked -> noteBound(provider, Bound.HOLD,
        "an answer (" + excerpt(a) + ") asked for a hold of " + asked + " ms; held "
            + step.holdMillis().getAsLong() + " ms (maxRetryAfter)"));
    step.holdMillis().ifPresent(h -> {
      if (h > 0) {
        listener.held(provider, h);
      }
    });
    return step.holdMillis().isPresent() && step.holdMillis().getAsLong() > 0
        ? step.holdMillis() : OptionalLong.empty();
  }

  private static boolean sameLimits(Map<String, LearnedLimit> a, Map<String, LearnedLimit> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.entrySet().stream().allMatch(e -> e.getValue().sameAs(b.get(e.getKey())));
  }

  /** Writes the limits this answer stated that the store does not have yet (or soon forgets). */
  private void share(String provider, ProviderAnnouncement said, Map<String, LearnedLimit> limits,
      long now) {
    List<LearnedLimit> changed = new ArrayList<>();
    List<String> names = new ArrayList<>();
    said.policies().forEach(p -> names.add(p.name()));
    said.remaining().forEach(r -> names.add(r.name()));
    for (String name : names) {
      LearnedLimit l = limits.get(name);
      String key = provider + '\u0000' + name;
      if (l == null || changed.contains(l)) {
        continue;
      }
      Long at = writtenAt.get(key);
      if (!l.sameAs(written.get(key)) || at == null || now - at >= REWRITE_MILLIS) {
        changed.add(l);
        written.put(key, l);
        writtenAt.put(key, now);
      }
    }
    prune(now);
    if (changed.isEmpty()) {
      return;
    }
    store.put(provider, changed).whenComplete((ok, error) -> {
      if (error != null) {
        LOG.debug("{}: could not share learned limits ({})", provider, error.toString());
        changed.forEach(l -> writtenAt.remove(provider + '\u0000' + l.name()));
      }
    });
  }

  /**
   * Reads what every instance learned about {@code provider} and adopts it: the store's view
   * replaces this instance's for the names it holds (it is at least as new: every answer is
   * written), and names it does not hold are kept until their own expiry.
   */
  public CompletionStage<Void> refresh(String provider) {
    long now = clockMillis.getAsLong();
    if (!bounds(provider).learn()) {
      return CompletableFuture.completedFuture(null);
    }
    return store.get(provider, now).handle((remote, error) -> {
      if (error != null) {
        LOG.debug("{}: could not read learned limits ({})", provider, error.toString());
        return null;
      }
      if (remote == null) {
        return null;
      }
      Map<String, LearnedLimit> all = new HashMap<>();
      Map<String, LearnedLimit> merged;
      boolean changed;
      synchronized (this) {
        learned.getOrDefault(provider, Map.of()).forEach((name, l) -> {
          if (l.expiresAtMillis() > now) {
            all.put(name, l);
          }
        });
        for (LearnedLimit l : remote) {
          LearnedLimit mine = all.get(l.name());
          long window = LimitLearning.longestWindow(mine, l.unit(), l.quota(), l.windowMillis());
          // A longer window of the same quota is kept with its own expiry, never renewed.
          all.put(l.name(), window == l.windowMillis() ? l : mine);
        }
        merged = LimitLearning.fewest(all);
        changed = !sameLimits(learned.getOrDefault(provider, Map.of()), merged);
        learned.put(provider, Map.copyOf(merged));
      }
      if (changed) {
        listener.learned(provider, merged.values());
        if (dueToLog(provider, "refreshed", now)) {
          LOG.info("{}: the learned limits are now {} (as the instances learned them)", provider,
              describe(merged.values()));
        }
      }
      return null;
    });
  }

  /**
   * The pace for {@code provider}: the configured rate lowered to its learned limits
   * ({@link LearnedRate}). Reads what other instances learned from the store at most once a
   * second, in the background (this call never waits for Redis).
   */
  public double ratePerSecond(String provider, double configured) {
    refreshIfDue(provider);
    return LearnedRate.perSecond(configured, current(provider),
        typicalCost.getOrDefault(provider, 1.0), bounds(provider).learnedFloor());
  }

  /**
   * Reads what every instance learned about {@code provider} from the store, in the background,
   * when the last read is {@link #REFRESH_MILLIS} old: an instance that has not learned anything
   * itself (no answer of its own yet, or one that stated nothing) still takes what the others
   * learned, within a second.
   */
  public void refreshIfDue(String provider) {
    refreshIfDue(provider, REFRESH_MILLIS);
  }

  /** {@link #refreshIfDue(String)}, when the last read is {@code everyMillis} old. */
  public void refreshIfDue(String provider, long everyMillis) {
    long now = clockMillis.getAsLong();
    Long last = refreshedAt.get(provider);
    if (last == null || now - last >= everyMillis) {
      refreshedAt.put(provider, now);
      refresh(provider);
    }
  }

  /**
   * Reads what the other instances learned about each of {@code providers}, waiting at most
   * {@code timeout} in all; a dispatcher does this once as it starts, before its lanes claim.
   *
   * <p>Why wait: a lane claims its first slot at the limits it knows. An instance that restarts
   * (a deploy, a crash) knowing nothing would claim its first call at the configured limits,
   * which do not record it in the learned windows' logs in Redis; the provider counts it all the
   * same, so while the windows are full (the steady state at a binding limit) some later call of
   * any instance is one too many, and gets a 429. Seen in an outside check: one 429 some 15 s after
   * a SIGKILLed instance came back. A store that does not answer in time changes nothing: the
   * lanes start at the configured limits, as on a first start, and learn from their answers.
   */
  public void preload(Collection<String> providers, Duration timeout) {
    long now = clockMillis.getAsLong();
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    for (String provider : providers) {
      refreshedAt.put(provider, now);
      reads.add(refresh(provider).toCompletableFuture());
    }
    try {
      CompletableFuture.allOf(
          reads.toArray(new CompletableFuture[0]))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      LOG.info("the learned limits were not read within {} ms ({}); lanes start from the "
          + "configured limits", timeout.toMillis(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The moving average of the cost of {@code provider}'s calls (1 before any answer). */
  public double typicalCost(String provider) {
    return typicalCost.getOrDefault(provider, 1.0);
  }

  /** The providers something was learned about, with their live limits (for {@code /health}). */
  public Map<String, List<LearnedLimit>> snapshot() {
    Map<String, List<LearnedLimit>> all = new TreeMap<>();
    for (String provider : learned.keySet()) {
      List<LearnedLimit> live = current(provider);
      if (!live.isEmpty()) {
        all.put(provider, live);
      }
    }
    return all;
  }

  /** The limits learned for {@code provider} and still live, tightest window first. */
  public List<LearnedLimit> current(String provider) {
    long now = clockMillis.getAsLong();
    List<LearnedLimit> live = new ArrayList<>();
    if (!bounds(provider).learn()) {
      return live;
    }
    for (LearnedLimit l : learned.getOrDefault(provider, Map.of()).values()) {
      if (l.expiresAtMillis() > now) {
        live.add(l);
      }
    }
    live.sort(Comparator.comparingLong(LearnedLimit::windowMillis)
        .thenComparing(LearnedLimit::name));
    return live;
  }

  /**
   * Forgets the writes that no longer decide anything: a write older than
   * {@link #REWRITE_MILLIS} is repeated at the next statement anyway. Keeps {@link #written} to
   * the names stated in the last 31 s (pruned at most once a second), whatever names a provider
   * invents.
   */
  void prune(long nowMillis) {
    long last = prunedAt;
    if (nowMillis - last < PRUNE_EVERY_MILLIS && nowMillis >= last) {
      return;
    }
    prunedAt = nowMillis;
    writtenAt.entrySet().removeIf(e -> nowMillis - e.getValue() >= REWRITE_MILLIS);
    written.keySet().retainAll(writtenAt.keySet());
  }

  /**
   * Forgets everything learned about {@code lane} ("provider" or "provider/tenant", as its answers
   * were keyed): its limits, its typical cost, when it was refreshed, written, bounded and logged.
   * For the dispatcher to call when a lane retires (an endpoint lane idle past its time): the maps
   * here are keyed by lane and, without it, grow by one entry per endpoint lane ever busy
   * (issue 34, 10). What the lane learned stays in the store for the next instance or lane that
   * reads it; a lane that comes back reads it again at its first refresh.
   */
  public void forget(String lane) {
    learned.remove(lane);
    typicalCost.remove(lane);
    refreshedAt.remove(lane);
    boundedLast.remove(lane);
    String prefix = lane + '\u0000';
    loggedAt.keySet().removeIf(k -> k.startsWith(prefix));
    writtenAt.keySet().removeIf(k -> k.startsWith(prefix));
    written.keySet().removeIf(k -> k.startsWith(prefix));
  }

  /** How many lanes anything is remembered about (for tests). */
  int rememberedLanes() {
    Set<String> lanes = new HashSet<>(learned.keySet());
    lanes.addAll(typicalCost.keySet());
    lanes.addAll(refreshedAt.keySet());
    lanes.addAll(boundedLast.keySet());
    Stream.of(loggedAt.keySet(), writtenAt.keySet(), written.keySet())
        .flatMap(Set::stream).forEach(k -> lanes.add(k.substring(0, k.indexOf('\u0000'))));
    return lanes.size();
  }

  /** How many (provider, name) writes are remembered (for tests). */
  int rememberedWrites() {
    return written.size();
  }

  /** Takes each provider's bounds (at start and on every reload). */
  public void bound(Map<String, AnswerBounds> byProvider) {
    this.bounds = Map.copyOf(byProvider);
  }

  /** What each configured provider's answers may do ({@code learn}, {@code learnedFloor}, {@code maxRetryAfter}). */
  public static Map<String, AnswerBounds> boundsOf(SluiceConfig config) {
    Map<String, AnswerBounds> bounds = new HashMap<>();
    config.providers().forEach((name, p) -> bounds.put(name, p.answers()));
    return bounds;
  }

  /**
   * {@code provider}'s bounds, the defaults for one not configured. A tenant's endpoint, named
   * {@code provider/tenant}, has its provider's (provider names have no {@code /}).
   */
  public AnswerBounds bounds(String provider) {
    AnswerBounds own = bounds.get(provider);
    if (own != null) {
      return own;
    }
    int slash = provider.indexOf('/');
    return slash < 0 ? AnswerBounds.DEFAULT
        : bounds.getOrDefault(provider.substring(0, slash), AnswerBounds.DEFAULT);
  }

  /**
   * A bound held back what an answer of {@code provider} asked for: counted, kept for
   * {@code /health} and logged (at most once a minute per provider and bound; {@code detail} is
   * built from bounded excerpts, never from whole header values).
   */
  public void noteBound(String provider, Bound bound, String detail) {
    long now = clockMillis.getAsLong();
    Map<Bound, Bounded> byBound = boundedLast.computeIfAbsent(provider,
        p -> new ConcurrentHashMap<>());
    byBound.merge(bound, new Bounded(bound, now, detail, 1),
        (old, fresh) -> new Bounded(bound, now, detail, old.count() + 1));
    listener.bounded(provider, bound);
    if (dueToLog(provider, bound.label(), now)) {
      LOG.warn("{}: bound {}: {}", provider, bound.label(), detail);
    }
  }

  /**
   * Whether a line of {@code kind} about {@code provider} may be logged now: at most one a
   * minute each, so a provider changing its answers on every call cannot flood the log.
   */
  private boolean dueToLog(String provider, String kind, long now) {
    String key = provider + '\u0000' + kind;
    Long last = loggedAt.get(key);
    if (last != null && now - last < LOG_EVERY_MILLIS) {
      return false;
    }
    loggedAt.put(key, now);
    return true;
  }

  /** What each bound last held back, by provider (for {@code /health}). */
  public Map<String, Map<Bound, Bounded>> boundedSoFar() {
    Map<String, Map<Bound, Bounded>> all = new TreeMap<>();
    boundedLast.forEach((p, m) -> all.put(p, Map.copyOf(m)));
    return all;
  }

  /**
   * The rate-limit fields of an answer (the only ones kept), at most {@link #EXCERPT_FIELDS} of
   * them, each name and value cut to {@link #EXCERPT_CHARS}, for a log line or {@code /health}.
   */
  static String excerpt(ProviderResult.Answered a) {
    StringBuilder out = new StringBuilder("status ").append(a.status());
    int shown = 0;
    for (Map.Entry<String, List<String>> f : new TreeMap<>(a.headers().fields())
        .entrySet()) {
      if (shown++ == EXCERPT_FIELDS) {
        out.append("; ...");
        break;
      }
      out.append("; ").append(cut(f.getKey())).append(": ")
          .append(cut(String.join(", ", f.getValue())));
    }
    return out.toString();
  }

  /** {@code value} with anything but printable ASCII as '?', cut to {@link #EXCERPT_CHARS}. */
  public static String cut(String value) {
    if (value == null) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length() && out.length() < EXCERPT_CHARS; i++) {
      char c = value.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return value.length() > EXCERPT_CHARS ? out + "..." : out.toString();
  }

  private static String describe(Collection<LearnedLimit> limits) {
    if (limits.isEmpty()) {
      return "none";
    }
    StringBuilder out = new StringBuilder();
    limits.stream().sorted(Comparator.comparing(LearnedLimit::name)).forEach(l -> out
        .append(out.length() == 0 ? "" : ", ").append(cut(l.name())).append(' ').append(l.quota())
        .append(' ').append(l.unit().label()).append('/').append(l.windowMillis()).append(" ms"));
    return out.toString();
  }
}
