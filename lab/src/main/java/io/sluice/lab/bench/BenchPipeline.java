package io.sluice.lab.bench;

import io.sluice.app.TopicAdmin;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayService;
import io.sluice.gate.Gate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Sluice's roles in this JVM for one scenario run, on fresh topics: a gate, optionally the relay
 * and any number of dispatchers (one consumer group, so they share the ready topic as separate
 * instances would). The gate's and relay's listeners tally what they decide. Closing stops the
 * roles downstream first, then deletes the run's topics so later runs share the broker with no
 * leftovers.
 */
final class BenchPipeline implements AutoCloseable {
  final SluiceConfig config;
  final Topics topics;
  final GateTally gate = new GateTally();
  final RelayTally relay = new RelayTally();
  private final List<AutoCloseable> running = new ArrayList<>();
  private final List<DispatcherService> dispatchers = new ArrayList<>();
  private Gate gateRole;

  private BenchPipeline(SluiceConfig config) {
    this.config = config;
    this.topics = new Topics(config.kafka().topicPrefix(), config.ladder());
  }

  /** Creates the topics ({@code partitions} each) and starts the roles; returns once the gate runs. */
  static BenchPipeline start(BenchContext ctx, BenchConfig spec, int partitions, boolean relay,
      int dispatchers) throws Exception {
    BenchPipeline p = new BenchPipeline(spec.load(ctx, BenchContext.unique("bench")));
    try {
      createTopics(p.config, partitions);
      p.gateRole = Gate.start(p.config, p.gate, Map.of());
      p.running.add(p.gateRole);
      if (relay) {
        p.running.add(RelayService.start(p.config, p.relay));
      }
      for (int i = 0; i < dispatchers; i++) {
        DispatcherService d = DispatcherService.start(p.config, DispatchListener.NONE);
        p.running.add(d);
        p.dispatchers.add(d);
      }
      await(() -> p.gateRole.streams().state() == KafkaStreams.State.RUNNING,
          Duration.ofSeconds(60), "the gate to run");
      // Every dispatcher holds partitions before any load: no rebalance in the measurement.
      await(() -> p.dispatchers.stream().allMatch(d -> d.dispatcher().assignedPartitions() > 0),
          Duration.ofSeconds(60), "every dispatcher to be assigned partitions");
    } catch (Exception | Error e) {
      p.close();
      throw e;
    }
    return p;
  }

  static void createTopics(SluiceConfig config, int partitions) throws Exception {
    try (TopicAdmin admin = new TopicAdmin(config)) {
      admin.create(partitions, (short) 1);
    }
  }

  static void deleteTopics(SluiceConfig config) {
    try (TopicAdmin plan = new TopicAdmin(config);
        Admin admin = Admin.create(config.kafka().clientProperties())) {
      List<String> names = plan.plan(1, (short) 1).stream().map(NewTopic::name)
          .collect(Collectors.toList());
      admin.deleteTopics(names).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      // Leftover topics only cost the broker some memory for the rest of the run.
    }
  }

  Gate gateRole() {
    return gateRole;
  }

  /** Waits for {@code condition}, checking every 20 ms, or fails naming {@code what}. */
  static void await(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for "
            + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
    }
  }

  @Override
  public void close() {
    for (int i = running.size() - 1; i >= 0; i--) {
      try {
        running.get(i).close();
      } catch (Exception e) {
        // stopping a role that already failed: nothing else to release
      }
    }
    running.clear();
    deleteTopics(config);
  }
}
