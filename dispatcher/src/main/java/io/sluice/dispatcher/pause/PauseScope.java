package io.sluice.dispatcher.pause;

import java.util.Optional;

/**
 * What a pause covers: one provider for every tenant ({@code sluice pause provider P}), one
 * tenant on every provider ({@code sluice pause tenant T}), or one tenant on one provider
 * ({@code pause provider P --endpoint T}, the same as {@code pause tenant T --provider P}).
 *
 * <p>Names are bounded as events' are: {@code [A-Za-z0-9._:-]{1,128}} (the event validator's
 * tenant rule, which configured provider names also meet). An empty {@link Optional} means
 * "every". The scope's {@link #field()} is its key in Redis, {@code <provider>/<tenant>} with
 * {@code *} for every; neither {@code /} nor {@code *} can occur in a name.
 *
 * @param provider the provider paused, or empty for every provider
 * @param tenant   the tenant paused, or empty for every tenant
 */
public record PauseScope(Optional<String> provider, Optional<String> tenant) {
  /** Longest provider or tenant name. */
  public static final int MAX_NAME_LENGTH = 128;
  private static final String EVERY = "*";

  public PauseScope {
    provider.ifPresent(p -> checkName("provider", p));
    tenant.ifPresent(t -> checkName("tenant", t));
    if (provider.isEmpty() && tenant.isEmpty()) {
      throw new IllegalArgumentException("a pause names a provider, a tenant, or both");
    }
  }

  public static PauseScope provider(String provider) {
    return new PauseScope(Optional.of(provider), Optional.empty());
  }

  public static PauseScope tenant(String tenant) {
    return new PauseScope(Optional.empty(), Optional.of(tenant));
  }

  public static PauseScope of(String provider, String tenant) {
    return new PauseScope(Optional.ofNullable(provider), Optional.ofNullable(tenant));
  }

  /** True if an event of {@code tenant} to {@code provider} is covered. */
  public boolean covers(String provider, String tenant) {
    return this.provider.map(provider::equals).orElse(true)
        && this.tenant.map(tenant::equals).orElse(true);
  }

  /** True if this pause concerns {@code provider} at all (a tenant's pause concerns every provider). */
  public boolean concerns(String provider) {
    return this.provider.map(provider::equals).orElse(true);
  }

  /** True if every call to {@code provider} is covered. */
  public boolean coversAllOf(String provider) {
    return tenant.isEmpty() && concerns(provider);
  }

  /** The key in Redis. */
  public String field() {
    return provider.orElse(EVERY) + "/" + tenant.orElse(EVERY);
  }

  /** The scope a Redis field names, or empty when it names none (written by something else). */
  public static Optional<PauseScope> parse(String field) {
    int slash = field.indexOf('/');
    if (slash < 0 || field.indexOf('/', slash + 1) >= 0) {
      return Optional.empty();
    }
    String p = field.substring(0, slash);
    String t = field.substring(slash + 1);
    try {
      return Optional.of(of(p.equals(EVERY) ? null : p, t.equals(EVERY) ? null : t));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** {@code provider P}, {@code tenant T}, or {@code provider P, tenant T}: for people. */
  @Override
  public String toString() {
    if (provider.isPresent() && tenant.isPresent()) {
      return "provider " + provider.get() + ", tenant " + tenant.get();
    }
    return provider.map(p -> "provider " + p).orElseGet(() -> "tenant " + tenant.get());
  }

  /** Throws if {@code name} is not {@code [A-Za-z0-9._:-]{1,128}}; the message shows it bounded. */
  public static void checkName(String what, String name) {
    boolean ok = !name.isEmpty() && name.length() <= MAX_NAME_LENGTH;
    for (int i = 0; ok && i < name.length(); i++) {
      char c = name.charAt(i);
      ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
          || c == '.' || c == '_' || c == ':' || c == '-';
    }
    if (!ok) {
      throw new IllegalArgumentException(what + " must match [A-Za-z0-9._:-]{1," + MAX_NAME_LENGTH
          + "}, got \"" + OperatorText.shown(name) + "\"");
    }
  }
}
