package io.sluice.dispatcher.feedback;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where dispatcher instances share what they learned about a provider's limits
 * ({@link RedisLearnedLimitStore}), so that one instance's answer lowers every instance's limits.
 */
public interface LearnedLimitStore {
  /**
   * Stores limits just stated by the provider, replacing those of the same names. Each expires
   * {@link LimitLearning#ttlMillis} after this, on the store's clock.
   */
  CompletionStage<Void> put(String provider, Collection<LearnedLimit> limits);

  /**
   * Forgets the limits of these names at once: the provider's policy list no longer names them
   * ({@link LimitLearning}).
   */
  CompletionStage<Void> forget(String provider, Collection<String> names);

  /**
   * The live limits, with expiries converted to the caller's clock ({@code nowMillis}).
   */
  CompletionStage<List<LearnedLimit>> get(String provider, long nowMillis);

  /** Keeps nothing: each instance learns alone. */
  LearnedLimitStore NONE = new LearnedLimitStore() {
    @Override
    public CompletionStage<Void> put(String provider, Collection<LearnedLimit> limits) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> forget(String provider, Collection<String> names) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<List<LearnedLimit>> get(String provider, long nowMillis) {
      return CompletableFuture.completedFuture(null);
    }
  };
}
