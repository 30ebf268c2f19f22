package io.sluice.lab.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * When each fault of a chaos run happens: SIGKILLs of the roles (each followed by a restart), Redis
 * restarts and broker restarts, spread over the load period. Pure and seeded, so a run can be
 * repeated.
 *
 * <p>Kills go round the roles in a shuffled order per round, so every role is killed about as often
 * as the others and never twice in a row before the others had their turn.
 */
public final class FaultPlan {
  public enum Kind { KILL_ROLE, RESTART_REDIS, RESTART_BROKER }

  /**
   * One fault: at {@code atMillis} after the load starts, SIGKILL {@code target}, and start it
   * again {@code downMillis} later.
   */
  public record Fault(long atMillis, Kind kind, String target, long downMillis) {}

  private FaultPlan() {}

  public static List<Fault> of(List<String> roles, int kills, int redisRestarts,
      int brokerRestarts, long loadMillis, long seed) {
    Random random = new Random(seed);
    List<Fault> faults = new ArrayList<>();
    long first = loadMillis / 20;
    long last = loadMillis * 9 / 10;
    List<String> round = new ArrayList<>();
    for (int k = 0; k < kills; k++) {
      if (round.isEmpty()) {
        round.addAll(roles);
        Collections.shuffle(round, random);
      }
      long at = kills == 1 ? first : first + (last - first) * k / (kills - 1);
      faults.add(new Fault(at, Kind.KILL_ROLE, round.remove(0), 500 + random.nextInt(1500)));
    }
    for (int r = 0; r < redisRestarts; r++) {
      // Long enough that every policy acts on the outage (the circuit opens on the first failure).
      long at = loadMillis * (r + 1) / (redisRestarts + 1) + loadMillis / 50;
      faults.add(new Fault(at, Kind.RESTART_REDIS, "redis", 4_000));
    }
    for (int b = 0; b < brokerRestarts; b++) {
      long at = loadMillis * (b + 1) / (brokerRestarts + 1) + loadMillis / 14;
      faults.add(new Fault(at, Kind.RESTART_BROKER, "broker", 3_000));
    }
    faults.sort(Comparator.comparingLong(Fault::atMillis));
    return List.copyOf(faults);
  }
}
