package io.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a configuration reload may change while Sluice runs, and what needs a restart.
 *
 * <p>The line is drawn by what the running parts hold. Limits and who-is-who are read per decision
 * (the gate looks a tenant's quota up per event, the lanes ask for the provider's limits per
 * claim, the fair queue asks for tier weights per pick), so changing them is a matter of swapping
 * one reference. Everything that was used to build a connection, a topic, a thread pool or an HTTP
 * client is held by that object for its life: changing it without a restart would leave a
 * configuration that says one thing while the process does another, which is worse than refusing.
 *
 * <p>Reloadable: {@code logging}, {@code tiers}, {@code defaultTier}, {@code tenants}, and per provider its
 * {@code rate}, {@code shadow}, {@code maxCost}, {@code maxDelay}, {@code dedupWindow}, {@code ordering},
 * {@code orderingOnDeadHead}, {@code maxOrderingKeys} and {@code quotas} (and any limit a provider
 * declares). Restart only: {@code kafka}, {@code redis}, {@code ladder}, {@code maxAttempts},
 * {@code reservationHorizon}, {@code http}, {@code gate}, {@code dispatcher}, the set of provider
 * names, and per provider its {@code url}, {@code maxInFlight}, {@code timeout},
 * {@code onRedisDown}, {@code forwardHeaders}, {@code method}, {@code contentType},
 * {@code headers}, {@code auth}, {@code signing}, {@code capture}, {@code tls},
 * {@code totalRate} and {@code batch} (each lane takes it when it opens). A {@code ${file:PATH}}
 * secret's content is not a setting: the running process reads the file again by itself
 * ({@link Secret}).
 */
public final class ReloadScope {
  private ReloadScope() {}

  /**
   * The settings that differ between {@code running} and {@code next} and cannot change without a
   * restart, by dotted path (empty when the reload may go ahead).
   */
  public static List<String> needingRestart(SluiceConfig running, SluiceConfig next) {
    List<String> fields = new ArrayList<>();
    differs(fields, "kafka", running.kafka(), next.kafka());
    differs(fields, "redis", running.redis(), next.redis());
    differs(fields, "ladder", running.ladder(), next.ladder());
    differs(fields, "maxAttempts", running.maxAttempts(), next.maxAttempts());
    differs(fields, "reservationHorizon", running.reservationHorizon(), next.reservationHorizon());
    differs(fields, "http", running.http(), next.http());
    differs(fields, "gate", running.gate(), next.gate());
    differs(fields, "dispatcher", running.dispatcher(), next.dispatcher());
    differs(fields, "tracing", running.tracing(), next.tracing());
    if (!running.providers().keySet().equals(next.providers().keySet())) {
      fields.add("providers (added or removed: " + symmetricDifference(
          running.providers().keySet(), next.providers().keySet()) + ")");
    } else {
      for (String name : new TreeSet<>(running.providers().keySet())) {
        ProviderConfig a = running.providers().get(name);
        ProviderConfig b = next.providers().get(name);
        String at = "providers." + name + ".";
        differs(fields, at + "url", a.url(), b.url());
        differs(fields, at + "maxInFlight", a.maxInFlight(), b.maxInFlight());
        differs(fields, at + "timeout", a.timeout(), b.timeout());
        differs(fields, at + "onRedisDown", a.onRedisDown(), b.onRedisDown());
        differs(fields, at + "forwardHeaders", a.forwardHeaders(), b.forwardHeaders());
        differs(fields, at + "batch", a.batch(), b.batch());
        differs(fields, at + "method", a.request().method(), b.request().method());
        differs(fields, at + "contentType", a.request().contentType(), b.request().contentType());
        differs(fields, at + "headers", a.request().headers(), b.request().headers());
        differs(fields, at + "auth", a.request().auth(), b.request().auth());
        differs(fields, at + "signing", a.request().signingSecrets(), b.request().signingSecrets());
        differs(fields, at + "capture", a.request().capture(), b.request().capture());
        differs(fields, at + "tls", a.request().tls(), b.request().tls());
        // A lane takes its provider's total line when it opens, and a busy lane is never
        // reopened: a total added or lowered by a reload would bind only lanes opened after it,
        // while the partner keeps seeing the old (or no) cap from the busy ones.
        differs(fields, at + "totalRate", a.endpoints().totalRate(), b.endpoints().totalRate());
      }
    }
    return fields;
  }

  /**
   * The reloadable settings that differ, by dotted path: what a log line says a reload changed.
   * A provider or tenant entry is named as a whole when anything in it changed. Meaningful when
   * {@link #needingRestart} is empty.
   */
  public static List<String> reloaded(SluiceConfig running, SluiceConfig next) {
    List<String> fields = new ArrayList<>();
    differs(fields, "logging", running.logging(), next.logging());
    differs(fields, "defaultTier", running.defaultTier(), next.defaultTier());
    for (String tier : union(running.tiers().keySet(), next.tiers().keySet())) {
      differs(fields, "tiers." + tier, running.tiers().get(tier), next.tiers().get(tier));
    }
    for (String tenant : union(running.tenants().keySet(), next.tenants().keySet())) {
      differs(fields, "tenants." + tenant, running.tenants().get(tenant), next.tenants().get(tenant));
    }
    for (String provider : union(running.providers().keySet(), next.providers().keySet())) {
      differs(fields, "providers." + provider, running.providers().get(provider),
          next.providers().get(provider));
    }
    return fields;
  }

  private static void differs(List<String> fields, String path, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      fields.add(path);
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new TreeSet<>(a);
    all.addAll(b);
    return all;
  }

  private static Set<String> symmetricDifference(Set<String> a, Set<String> b) {
    Set<String> out = union(a, b);
    Set<String> both = new TreeSet<>(a);
    both.retainAll(b);
    out.removeAll(both);
    return out;
  }
}
