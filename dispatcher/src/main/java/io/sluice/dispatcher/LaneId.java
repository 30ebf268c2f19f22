package io.sluice.dispatcher;

import java.util.Objects;

/**
 * The name of one lane of calls: a provider's own ({@code tenant} null), or one tenant's endpoint
 * of a per-tenant provider. Its {@link #name()} ({@code provider} or {@code provider/tenant}) keys
 * the lane's leak, learned limits and throttle in Redis, shared by every instance, so it is built
 * here and parsed here only. Provider names have no {@code /} (the configuration refuses one), so
 * the first {@code /} always separates the two.
 *
 * @param provider the configured provider
 * @param tenant   the tenant whose own endpoint this lane calls, or null for the provider's lane
 */
public record LaneId(String provider, String tenant) {
  public LaneId {
    Objects.requireNonNull(provider, "provider");
    if (provider.indexOf('/') >= 0) {
      throw new IllegalArgumentException("a provider name has no '/': " + provider);
    }
  }

  /** The provider's own lane. */
  public static LaneId provider(String provider) {
    return new LaneId(provider, null);
  }

  /** The lane of {@code tenant}'s own endpoint of {@code provider}. */
  public static LaneId endpoint(String provider, String tenant) {
    return new LaneId(provider, Objects.requireNonNull(tenant, "tenant"));
  }

  /** The lane a {@link #name()} names. */
  public static LaneId parse(String name) {
    int slash = name.indexOf('/');
    return slash < 0 ? provider(name) : endpoint(name.substring(0, slash), name.substring(slash + 1));
  }

  /** The provider a lane name belongs to: the name itself for a provider's own lane. */
  public static String providerOf(String name) {
    int slash = name.indexOf('/');
    return slash < 0 ? name : name.substring(0, slash);
  }

  /** Whether this lane calls one tenant's own endpoint. */
  public boolean isEndpoint() {
    return tenant != null;
  }

  /** {@code provider}, or {@code provider/tenant}: the key of its state shared through Redis. */
  public String name() {
    return tenant == null ? provider : provider + "/" + tenant;
  }

  @Override
  public String toString() {
    return name();
  }
}
