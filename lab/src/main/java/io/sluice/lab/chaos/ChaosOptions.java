package io.sluice.lab.chaos;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shape of a chaos run.
 *
 * @param kills          SIGKILLs of the roles, spread over the load, each followed by a restart
 * @param events         events produced, evenly over {@code loadSeconds}
 * @param loadSeconds    the load period; the faults and the provider's phases fall within it
 * @param redisRestarts  SIGKILL + start of redis-server (each is an outage for every policy)
 * @param brokerRestarts SIGKILL + start of the broker process
 * @param settleSeconds  how long to wait after the load for every event to end somewhere
 * @param maxRetryAfterSeconds every provider's {@code maxRetryAfter}: the longest one answer holds
 *                       it, so each of the hostile phase's answers ({@link ProviderPhase#HOSTILE})
 *                       holds its provider about this long
 * @param seed           the fault plan's and the load's random seed
 * @param workDirectory  configuration, logs and the broker's data; null: a temporary directory
 *                       deleted after a run that passed
 * @param classPath      the class path the child JVMs run from (the jar, or a test's class path)
 */
public record ChaosOptions(int kills, int events, long loadSeconds, int redisRestarts,
    int brokerRestarts, long settleSeconds, int maxRetryAfterSeconds, long seed,
    Path workDirectory, String classPath) {

  public ChaosOptions {
    if (kills < 0 || events <= 0 || loadSeconds <= 0 || redisRestarts < 0 || brokerRestarts < 0
        || settleSeconds <= 0 || maxRetryAfterSeconds <= 0) {
      throw new IllegalArgumentException("chaos: kills, restarts >= 0; events, load and settle "
          + "times, max Retry-After > 0");
    }
  }

  Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kills", kills);
    m.put("events", events);
    m.put("loadSeconds", loadSeconds);
    m.put("redisRestarts", redisRestarts);
    m.put("brokerRestarts", brokerRestarts);
    m.put("settleSeconds", settleSeconds);
    m.put("maxRetryAfterSeconds", maxRetryAfterSeconds);
    m.put("seed", seed);
    return m;
  }
}
