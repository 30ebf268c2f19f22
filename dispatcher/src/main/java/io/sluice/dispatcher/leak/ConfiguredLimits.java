package io.sluice.dispatcher.leak;

import io.sluice.config.LiveConfig;
import io.sluice.config.ProviderLimit;
import java.util.List;

/**
 * A provider's configured limits as the configuration in force states them: a reload that changes
 * {@code rate:} or {@code limits:} reaches the very next claim. The limits are rebuilt only when
 * the provider's list changes (compared by identity, which a reload replaces), so the claim path
 * allocates nothing in the steady state.
 *
 * <p>Why a changed amount keeps its history: Redis keys are named by limit, not by amount (see
 * {@link LimitSource}), so lowering 600 per minute to 500 judges the next claim against the calls
 * already made in the last minute, and raising it frees room at once.
 */
public final class ConfiguredLimits implements LimitSource {
  private final LiveConfig config;
  private final String provider;
  /** The list the cached limits were built from, and them; replaced together. */
  private volatile Cached cached;

  private record Cached(List<ProviderLimit> source, ProviderLimits limits) {}

  public ConfiguredLimits(LiveConfig config, String provider) {
    this.config = config;
    this.provider = provider;
    if (config.get().providers().get(provider) == null) {
      throw new IllegalArgumentException("no provider " + provider + " in the configuration");
    }
  }

  @Override
  public ProviderLimits current() {
    // A reload cannot remove a provider (ReloadScope), so the entry is always there.
    List<ProviderLimit> now = config.get().providers().get(provider).limits();
    Cached c = cached;
    if (c == null || c.source() != now) {
      c = new Cached(now, new ProviderLimits(now));
      cached = c;
    }
    return c.limits();
  }
}
