package io.sluice.gate;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SeenIds} on Redis: one key per id ({@code BucketKey.seenKey}), set once with the window
 * as its expiry by {@code lua/dedup.lua}, so Redis holds each id for the window and no longer.
 * One call per event of a provider with a window, waited for on the stream thread (at most
 * {@code gate.redisTimeout}), through the gate's circuit: while Redis does not answer, nothing is
 * suppressed.
 */
public final class RedisSeenIds implements SeenIds {
  private static final Logger LOG = LoggerFactory.getLogger(RedisSeenIds.class);
  private final RedisScriptingAsyncCommands<String, String> commands;
  private final RedisCircuit circuit;
  private final Duration timeout;
  private final LuaScript script = LuaScript.load("/lua/dedup.lua");
  private final LongAdder calls = new LongAdder();
  private volatile boolean failing;

  public RedisSeenIds(RedisScriptingAsyncCommands<String, String> commands, RedisCircuit circuit, Duration timeout) {
    this.commands = commands;
    this.circuit = circuit;
    this.timeout = timeout;
  }

  @Override
  public String firstMark(String key, String mark, Duration window) {
    calls.increment();
    try {
      List<Object> answer = circuit.call(() -> script.run(commands, new String[] {key},
              new String[] {mark, Long.toString(window.toMillis())}, () -> {}))
          .toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      failing = false;
      return answer.isEmpty() ? null : (String) answer.get(0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      if (!failing) {
        LOG.warn("gate: Redis did not answer the dedup check ({}); repeated ids are not suppressed until it does",
            e.getClass().getSimpleName());
        failing = true;
      }
      return null;
    }
  }

  /** Dedup checks made by this instance. */
  public long calls() {
    return calls.sum();
  }
}
