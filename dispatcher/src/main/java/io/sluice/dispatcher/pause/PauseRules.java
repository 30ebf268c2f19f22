package io.sluice.dispatcher.pause;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Optional;

/**
 * The pauses in force, as one dispatcher last read them, and the decision they make: may this
 * event be called now? Pure and immutable; time is passed in.
 *
 * <p>An event is <b>held</b> while any pause covers it (its provider's, its tenant's, or its
 * tenant's on its provider). A held event is neither called nor given a slot of the leak; it
 * waits. Its deadline still ends it: a held event past its deadline is {@link Decision#EXPIRE}d
 * (dead as {@code expired}), as it would have been on its way to a call. Nothing else about an
 * event matters: a pause is the operator's word, not a judgement of the event.
 *
 * <p>The rules a dispatcher holds are the last it read ({@link PauseWatcher}); while Redis does
 * not answer, the last read stays in force. A pause is an operator's deliberate stop, so an outage
 * must not lift it; the other way round, a resume made during an outage takes effect once Redis
 * answers again.
 */
public final class PauseRules {
  /** No pause: everything may be called. */
  public static final PauseRules NONE = new PauseRules(List.of());

  /** What to do with an event now. */
  public enum Decision {
    /** No pause covers it: on its way as usual. */
    CALL,
    /** A pause covers it and its deadline has not passed: it waits, with no attempt and no slot. */
    HOLD,
    /** A pause covers it and its deadline has passed: dead as {@code expired}. */
    EXPIRE
  }

  private final List<Pause> pauses;
  /** Indexes of {@link #pauses}, so that {@link #holds} costs three lookups however many there are. */
  private final Set<String> wholeProviders = new HashSet<>();
  private final Set<String> everywhereTenants = new HashSet<>();
  private final Set<PauseScope> pairs = new HashSet<>();

  private PauseRules(List<Pause> pauses) {
    this.pauses = pauses;
    for (Pause p : pauses) {
      PauseScope s = p.scope();
      if (s.tenant().isEmpty()) {
        wholeProviders.add(s.provider().orElseThrow());
      } else if (s.provider().isEmpty()) {
        everywhereTenants.add(s.tenant().get());
      } else {
        pairs.add(s);
      }
    }
  }

  /** True if a pause covers an event of {@code tenant} to {@code provider}. */
  public boolean holds(String provider, String tenant) {
    return !pauses.isEmpty() && (wholeProviders.contains(provider)
        || everywhereTenants.contains(tenant)
        || (!pairs.isEmpty() && pairs.contains(PauseScope.of(provider, tenant))));
  }

  /** The rules of these pauses, sorted by scope (one per scope: a later duplicate is ignored). */
  public static PauseRules of(List<Pause> pauses) {
    List<Pause> sorted = pauses.stream()
        .sorted(Comparator.comparing(p -> p.scope().field()))
        .toList();
    List<Pause> unique = new ArrayList<>();
    for (Pause p : sorted) {
      if (unique.isEmpty() || !unique.get(unique.size() - 1).scope().equals(p.scope())) {
        unique.add(p);
      }
    }
    return unique.isEmpty() ? NONE : new PauseRules(List.copyOf(unique));
  }

  /**
   * The pauses of both: what a dispatcher honours of the operator topic's pauses and the cache's
   * ({@link PauseWatcher}). A scope paused in either is paused (who, when and why of {@code first}
   * where both have it): a cache that lost its data cannot lift a pause the topic holds, and a
   * pause written to the cache alone (a tool of before the topic) still holds.
   */
  public static PauseRules union(PauseRules first, PauseRules second) {
    if (second.isEmpty()) {
      return first;
    }
    if (first.isEmpty()) {
      return second;
    }
    List<Pause> both = new ArrayList<>(first.pauses);
    both.addAll(second.pauses);
    return of(both);
  }

  /**
   * What to do now with an event of {@code tenant} to {@code provider}.
   *
   * @param deadline the event's deadline, or null when it has none
   */
  public Decision decide(String provider, String tenant, Instant deadline, Instant now) {
    if (!holds(provider, tenant)) {
      return Decision.CALL;
    }
    return deadline != null && now.isAfter(deadline) ? Decision.EXPIRE : Decision.HOLD;
  }

  /** The first pause (by scope) that covers an event of {@code tenant} to {@code provider}. */
  public Optional<Pause> covering(String provider, String tenant) {
    for (Pause p : pauses) {
      if (p.scope().covers(provider, tenant)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** True while every call to {@code provider} is paused. */
  public boolean pausesAllOf(String provider) {
    return wholeProviders.contains(provider);
  }

  /**
   * The pauses that concern {@code provider}: its own, its tenants' on it, and tenants' on every
   * provider ({@code sluice_dispatch_paused}, {@code /health}).
   */
  public List<Pause> concerning(String provider) {
    return pauses.stream().filter(p -> p.scope().concerns(provider)).toList();
  }

  /** Every pause, sorted by scope. */
  public List<Pause> all() {
    return pauses;
  }

  public boolean isEmpty() {
    return pauses.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PauseRules r && r.pauses.equals(pauses);
  }

  @Override
  public int hashCode() {
    return pauses.hashCode();
  }

  @Override
  public String toString() {
    return "PauseRules" + pauses;
  }
}
