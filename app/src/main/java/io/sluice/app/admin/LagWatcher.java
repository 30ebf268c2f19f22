package io.sluice.app.admin;

import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@link ConsumerLag} every {@link #EVERY} on its own thread, for
 * {@code sluice_consumer_lag{group,topic}}: every instance exports it, whichever roles it runs,
 * so the backlog shows even when no dispatcher (or no gate, no relay) runs. A scrape reads the
 * last figures and never waits for Kafka; a figure Kafka did not give (a failed read, a topic not
 * there) is NaN, never a stale number.
 */
public final class LagWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LagWatcher.class);
  /** How often the lag is read: one Admin round of four requests. */
  public static final Duration EVERY = Duration.ofSeconds(10);

  private final Admin admin;
  private final Map<String, List<String>> groups;
  private final ScheduledExecutorService timer;
  private volatile Map<String, Long> lags = Map.of();
  private boolean failing;

  private LagWatcher(Admin admin, Map<String, List<String>> groups) {
    this.admin = admin;
    this.groups = groups;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-lag");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts reading the groups of {@code config} with {@code admin} (the caller closes it). */
  public static LagWatcher start(SluiceConfig config, Admin admin) {
    LagWatcher w = new LagWatcher(admin, ConsumerLag.groups(config));
    w.timer.scheduleWithFixedDelay(w::refresh, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return w;
  }

  /** Each Sluice group and the topics it reads: the gauges to register. */
  public Map<String, List<String>> groups() {
    return groups;
  }

  /** The last lag read of {@code group} on {@code topic}, NaN when unknown. */
  public double lag(String group, String topic) {
    Long n = lags.get(group + "\n" + topic);
    return n == null ? Double.NaN : n;
  }

  private void refresh() {
    try {
      Map<String, Long> next = new HashMap<>();
      for (ConsumerLag.Lag l : ConsumerLag.read(admin, groups)) {
        next.put(l.group() + "\n" + l.topic(), l.records());
      }
      lags = next;
      if (failing) {
        LOG.info("consumer lag: read again");
      }
      failing = false;
    } catch (RuntimeException e) {
      lags = Map.of();
      if (!failing) {
        LOG.warn("consumer lag: could not read it ({}); sluice_consumer_lag is NaN until it can",
            e.toString());
      }
      failing = true;
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
