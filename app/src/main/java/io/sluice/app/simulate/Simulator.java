package io.sluice.app.simulate;

import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams arrivals ({@link Arrivals}) once through one {@link Simulation} per configuration (the current one
 * first, then each candidate), so they are compared on exactly the same traffic. Each value is
 * read by the event contract once (by its source); each configuration then applies its own
 * rules to it (providers, costs, tiers, quotas).
 */
public final class Simulator {
  private Simulator() {}

  /** A configuration to try, and what to call it in the report. */
  public record Candidate(String label, SluiceConfig config) {}

  /** One configuration's outcome. */
  public record Run(String label, Simulation.Outcome outcome) {}

  /**
   * What the simulations came to, with what was read.
   *
   * @param lines      lines read
   * @param bounded    a bound stopped the read before the end of the input
   * @param wallMillis how long the simulations took on this machine
   */
  public record Report(List<Run> runs, long lines, boolean bounded, long wallMillis) {
    /** Events simulated per second of wall time, over every configuration together. */
    public double eventsPerSecond() {
      long events = runs.isEmpty() ? 0 : runs.get(0).outcome().events();
      return wallMillis == 0 ? events * 1000.0 : events * 1000.0 / wallMillis;
    }
  }

  public static Report run(List<Candidate> candidates, Arrivals input, int maxTenants) {
    return run(candidates, input, maxTenants, Duration.ZERO);
  }

  /** @param pipelineDelay the pipeline's own delay, the same for every configuration ({@link Simulation}) */
  public static Report run(List<Candidate> candidates, Arrivals input, int maxTenants, Duration pipelineDelay) {
    return run(candidates, input, maxTenants, pipelineDelay, 1);
  }

  /**
   * @param threads at most this many threads simulate, each a share of the providers
   *                ({@link ShardedRun}); 1, or a configuration of one provider: the calling thread
   */
  public static Report run(List<Candidate> candidates, Arrivals input, int maxTenants, Duration pipelineDelay,
      int threads) {
    long started = System.nanoTime();
    int providers = candidates.stream().mapToInt(c -> c.config().providers().size()).max().orElse(1);
    int shards = Math.min(threads, providers);
    if (shards > 1) {
      Simulation.Outcome[] outcomes = ShardedRun.run(candidates, input, maxTenants, pipelineDelay.toNanos() / 1000,
          shards);
      List<Run> runs = new ArrayList<>();
      for (int i = 0; i < outcomes.length; i++) {
        runs.add(new Run(candidates.get(i).label(), outcomes[i]));
      }
      return new Report(runs, input.linesRead(), input.bounded(), (System.nanoTime() - started) / 1_000_000);
    }
    Simulation[] sims = new Simulation[candidates.size()];
    for (int i = 0; i < sims.length; i++) {
      sims[i] = new Simulation(candidates.get(i).config(), maxTenants, pipelineDelay.toNanos() / 1000);
    }
    Arrivals.Sink toEach = (atMillis, parsed, valueBytes) -> {
      for (Simulation sim : sims) {
        sim.arrive(atMillis * 1000, parsed, valueBytes);
      }
    };
    while (input.next(toEach)) {
      // each arrival went to every simulation
    }
    List<Run> runs = new ArrayList<>();
    for (int i = 0; i < sims.length; i++) {
      runs.add(new Run(candidates.get(i).label(), sims[i].finish()));
    }
    return new Report(runs, input.linesRead(), input.bounded(), (System.nanoTime() - started) / 1_000_000);
  }
}
