package io.sluice.lab.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads Redis's own accounts, for figures measured on the server's side: commands executed
 * ({@code INFO commandstats}), memory used ({@code INFO memory}, {@code MEMORY USAGE}). Its own
 * INFO calls are left out of the command counts.
 */
final class RedisProbe implements AutoCloseable {
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> sync;

  RedisProbe(String uri) {
    this.client = RedisClient.create(RedisURI.create(uri));
    this.connection = client.connect();
    this.sync = connection.sync();
  }

  /** Calls per command name since the server started (or CONFIG RESETSTAT), INFO excluded. */
  Map<String, Long> commandCalls() {
    Map<String, Long> calls = new HashMap<>();
    for (String line : sync.info("commandstats").split("\r?\n")) {
      // cmdstat_evalsha:calls=123,usec=456,usec_per_call=3.7,...
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        int from = line.indexOf("calls=") + "calls=".length();
        int to = line.indexOf(',', from);
        if (!name.equals("info")) {
          calls.put(name, Long.parseLong(line.substring(from, to)));
        }
      }
    }
    return calls;
  }

  /**
   * Script invocations (EVALSHA and EVAL) since the server started: the requests a Sluice role
   * makes, since the limiter's connection is given scripting commands only. INFO's other counts
   * include the commands a script runs inside itself.
   */
  long scriptCalls() {
    Map<String, Long> calls = commandCalls();
    return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L)
        + calls.getOrDefault("evalsha_ro", 0L) + calls.getOrDefault("eval_ro", 0L);
  }

  /** Every command executed since the server started, inside scripts too, INFO excluded. */
  long totalCalls() {
    return commandCalls().values().stream().mapToLong(Long::longValue).sum();
  }

  /** redis-server's CPU time since it started, user and system ({@code INFO cpu}), in µs. */
  long cpuMicros() {
    double seconds = 0;
    for (String line : sync.info("cpu").split("\r?\n")) {
      if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
        seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return Math.round(seconds * 1e6);
  }

  /** {@code used_memory}: bytes the allocator holds for data and overhead. */
  long usedMemory() {
    for (String line : sync.info("memory").split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("INFO memory has no used_memory");
  }

  /** {@code MEMORY USAGE key}: bytes of one key with its overhead; 0 when absent. */
  long memoryUsage(String key) {
    Long bytes = sync.memoryUsage(key);
    return bytes == null ? 0 : bytes;
  }

  RedisCommands<String, String> commands() {
    return sync;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }
}
