package io.sluice.gate;

import java.util.Map;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A store that holds nothing and exists for its flush: Kafka Streams flushes a task's caching
 * stores on the stream thread before it commits the task's offsets and output (its own KTable
 * caches forward their records there), so the limit node drains its pending events here
 * ({@link PendingEvents}): every event whose offset a commit covers has had its output written
 * in that transaction. Kafka Streams calls it before every commit, at a rebalance and at a clean
 * close too. No changelog, nothing persistent.
 */
final class PendingFlush implements StateStore, CachedStateStore<Object, Object> {
  static final String NAME = "gate-pending-flush";

  private Runnable onFlush = () -> {};
  private boolean open;

  void onFlush(Runnable drain) {
    this.onFlush = drain;
  }

  @Override
  public void flushCache() {
    onFlush.run();
  }

  @Override
  public boolean setFlushListener(CacheFlushListener<Object, Object> listener, boolean sendOldValues) {
    return false;
  }

  @Override
  public void clearCache() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void init(StateStoreContext context, StateStore root) {
    context.register(root, (key, value) -> {});
    open = true;
  }

  @Override
  public void close() {
    open = false;
  }

  @Override
  public boolean persistent() {
    return false;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  /** Builds one per task, never logged. */
  static StoreBuilder<PendingFlush> builder() {
    return new StoreBuilder<>() {
      @Override
      public StoreBuilder<PendingFlush> withCachingEnabled() {
        return this;
      }

      @Override
      public StoreBuilder<PendingFlush> withCachingDisabled() {
        return this;
      }

      @Override
      public StoreBuilder<PendingFlush> withLoggingEnabled(Map<String, String> config) {
        throw new UnsupportedOperationException("the pending flush keeps nothing to log");
      }

      @Override
      public StoreBuilder<PendingFlush> withLoggingDisabled() {
        return this;
      }

      @Override
      public PendingFlush build() {
        return new PendingFlush();
      }

      @Override
      public Map<String, String> logConfig() {
        return Map.of();
      }

      @Override
      public boolean loggingEnabled() {
        return false;
      }

      @Override
      public String name() {
        return NAME;
      }
    };
  }
}
