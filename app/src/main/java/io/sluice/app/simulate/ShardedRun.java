package io.sluice.app.simulate;

import io.sluice.schemas.validation.ValidationResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The simulations of {@link Simulator} on several threads: a configuration's providers are dealt
 * to shards (in name order, provider {@code i} to shard {@code i mod n}), each shard a
 * {@link Simulation} of its own on a thread of its own, and the arrivals read once on the calling
 * thread and handed to the shard of their provider in batches. What a simulation decides for an
 * event depends only on its provider's lane (the (provider, tenant) bucket, the provider's fair
 * queue and leak), so a shard decides its providers' events exactly as one simulation of every
 * provider would; the tenants' and tiers' tallies are added up at the end. Values without a
 * configured provider (dead letters) go to the first shard.
 *
 * <p>Two differences, both small: an arrival stamped earlier than the one before in its shard is
 * taken as arriving at its shard's now, not the whole simulation's; and {@code --max-tenants}
 * holds per shard. Memory: a few batches per shard in flight ({@link #BATCH} arrivals each).
 */
final class ShardedRun {
  static final int BATCH = 4096;
  private static final int IN_FLIGHT = 4;

  private ShardedRun() {}

  /** Each candidate's outcome, its providers simulated on {@code threads} threads. */
  static Simulation.Outcome[] run(List<Simulator.Candidate> candidates, Arrivals input, int maxTenants,
      long pipelineDelayMicros, int threads) {
    TreeSet<String> providers = new TreeSet<>();
    candidates.forEach(c -> providers.addAll(c.config().providers().keySet()));
    Map<String, Integer> shardOf = new HashMap<>();
    for (String p : providers) {
      shardOf.put(p, shardOf.size() % threads);
    }
    Simulation[][] sims = new Simulation[threads][candidates.size()];
    for (int s = 0; s < threads; s++) {
      for (int c = 0; c < candidates.size(); c++) {
        sims[s][c] = new Simulation(candidates.get(c).config(), maxTenants, pipelineDelayMicros);
      }
    }
    AtomicReference<RuntimeException> failed = new AtomicReference<>();
    Shard[] shards = new Shard[threads];
    for (int s = 0; s < threads; s++) {
      shards[s] = new Shard(sims[s], failed);
      shards[s].thread.start();
    }
    try {
      Batch[] filling = new Batch[threads];
      for (int s = 0; s < threads; s++) {
        filling[s] = new Batch();
      }
      Arrivals.Sink route = (atMillis, parsed, valueBytes) -> {
        Integer s = parsed instanceof ValidationResult.Valid v ? shardOf.get(v.event().provider()) : null;
        int shard = s == null ? 0 : s;
        Batch b = filling[shard];
        b.add(atMillis, parsed, valueBytes);
        if (b.size == BATCH) {
          shards[shard].hand(b);
          filling[shard] = new Batch();
        }
      };
      while (input.next(route)) {
        // routed
      }
      for (int s = 0; s < threads; s++) {
        shards[s].hand(filling[s]);
        shards[s].hand(Batch.END);
      }
      for (Shard shard : shards) {
        shard.thread.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      for (Shard shard : shards) {
        shard.thread.interrupt();
      }
    }
    if (failed.get() != null) {
      throw failed.get();
    }
    Simulation.Outcome[] out = new Simulation.Outcome[candidates.size()];
    for (int c = 0; c < out.length; c++) {
      Simulation.Outcome[] parts = new Simulation.Outcome[threads];
      for (int s = 0; s < threads; s++) {
        parts[s] = shards[s].outcomes[c];
      }
      out[c] = added(parts);
    }
    return out;
  }

  /** The shards' outcomes as one: tallies of the same tenant or tier added, providers side by side. */
  private static Simulation.Outcome added(Simulation.Outcome[] parts) {
    long events = 0;
    long span = 0;
    Map<String, Tally> tenants = new TreeMap<>();
    Map<String, Tally> tiers = new TreeMap<>();
    Map<String, ProviderTally> providers = new TreeMap<>();
    Tally unattributed = new Tally();
    for (Simulation.Outcome o : parts) {
      events += o.events();
      span = Math.max(span, o.spanMicros());
      o.tenants().forEach((k, t) -> tenants.computeIfAbsent(k, x -> new Tally()).add(t));
      o.tiers().forEach((k, t) -> tiers.computeIfAbsent(k, x -> new Tally()).add(t));
      providers.putAll(o.providers());
      unattributed.add(o.unattributed());
    }
    return new Simulation.Outcome(events, tenants, tiers, providers, unattributed, span);
  }

  /** Arrivals handed to a shard at once. */
  private static final class Batch {
    static final Batch END = new Batch();
    final long[] at = new long[BATCH];
    final ValidationResult[] parsed = new ValidationResult[BATCH];
    final int[] bytes = new int[BATCH];
    int size;

    void add(long atMillis, ValidationResult p, int valueBytes) {
      at[size] = atMillis;
      parsed[size] = p;
      bytes[size] = valueBytes;
      size++;
    }
  }

  /** One shard's thread: its simulations (one per candidate) fed the batches it is handed. */
  private static final class Shard implements Runnable {
    final Simulation[] sims;
    final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(IN_FLIGHT);
    final AtomicReference<RuntimeException> failed;
    final Thread thread;
    Simulation.Outcome[] outcomes;

    Shard(Simulation[] sims, AtomicReference<RuntimeException> failed) {
      this.sims = sims;
      this.failed = failed;
      this.thread = new Thread(this, "simulate-shard");
      thread.setDaemon(true);
    }

    /** Hands a batch over, waiting for room; throws a shard's error as soon as one failed. */
    void hand(Batch b) {
      try {
        while (!queue.offer(b, 100, TimeUnit.MILLISECONDS)) {
          if (failed.get() != null) {
            throw failed.get(); // a shard's error (too many tenants) ends the read at once
          }
          if (!thread.isAlive()) {
            return;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while handing arrivals over", e);
      }
    }

    @Override
    public void run() {
      try {
        while (true) {
          Batch b = queue.take();
          if (b == Batch.END) {
            break;
          }
          for (int i = 0; i < b.size; i++) {
            for (Simulation sim : sims) {
              sim.arrive(b.at[i] * 1000, b.parsed[i], b.bytes[i]);
            }
          }
        }
        Simulation.Outcome[] done = new Simulation.Outcome[sims.length];
        for (int c = 0; c < sims.length; c++) {
          done[c] = sims[c].finish();
        }
        outcomes = done;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        failed.compareAndSet(null, e);
      }
    }
  }
}
