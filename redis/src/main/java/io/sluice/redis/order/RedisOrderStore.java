package io.sluice.redis.order;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link OrderStore} on Redis: one {@code lua/ordering.lua} call per assignment (the gate, waited
 * for on its stream thread), per read of a key's turn (the dispatcher, waited for on its consumer
 * thread) and per settlement (not waited for; tried again while Redis does not answer, after 0.1 s
 * doubling to a minute, {@value #SETTLE_TRIES} times: about 15 minutes), each at most
 * {@code timeout}, through the role's circuit. A settlement is idempotent (a compare-and-set on
 * its seq), so trying it again never moves a key twice.
 *
 * <p>A key's state expires {@link #STATE_TTL} after its last change: longer than any event waits
 * (the topics' retention), so it bounds only what a key left behind costs (an event whose
 * settlement never reached Redis), never holds a live key's order.
 */
public final class RedisOrderStore implements OrderStore {
  /** The topics' retention: no event of a key outlives it. */
  public static final Duration STATE_TTL = Duration.ofDays(7);
  static final int SETTLE_TRIES = 20;
  private static final Logger LOG = LoggerFactory.getLogger(RedisOrderStore.class);
  private final RedisScriptingAsyncCommands<String, String> commands;
  private final RedisCircuit circuit;
  private final Duration timeout;
  private final LuaScript script;
  private final String ttl = Long.toString(STATE_TTL.toMillis());

  public RedisOrderStore(RedisScriptingAsyncCommands<String, String> commands, RedisCircuit circuit,
      Duration timeout) {
    this(commands, circuit, timeout, LuaScript.load("/lua/ordering.lua"));
  }

  RedisOrderStore(RedisScriptingAsyncCommands<String, String> commands, RedisCircuit circuit,
      Duration timeout, LuaScript script) {
    this.commands = commands;
    this.circuit = circuit;
    this.timeout = timeout;
    this.script = script;
  }

  @Override
  public Assigned assign(OrderKeys keys, String orderingKey, String source, int maxKeysInFlight) {
    try {
      List<Object> answer = call(keys, orderingKey, "assign", source, ttl, Integer.toString(maxKeysInFlight),
          orderingKey).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if ("full".equals(answer.get(0))) {
        return new Assigned.Full((Long) answer.get(1));
      }
      return new Assigned.Given(new OrderTicket((Long) answer.get(1), (Long) answer.get(2)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Assigned.Unanswered("interrupted");
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return new Assigned.Unanswered(e.getClass().getSimpleName());
    }
  }

  @Override
  public Read turn(OrderKeys keys, String orderingKey) {
    try {
      List<Object> answer = call(keys, orderingKey, "turn").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if ("none".equals(answer.get(0))) {
        return new Read(true, Optional.empty());
      }
      return new Read(true, Optional.of(new KeyTurn((Long) answer.get(1), (Long) answer.get(2),
          (Long) answer.get(3))));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Read.UNANSWERED;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      return Read.UNANSWERED;
    }
  }

  @Override
  public void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how,
      boolean deadLetterFollowers) {
    settle(keys, orderingKey, ticket, how, deadLetterFollowers, 1);
  }

  private void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how,
      boolean deadLetterFollowers, int attempt) {
    call(keys, orderingKey, "settle", Long.toString(ticket.epoch()), Long.toString(ticket.seq()), how.code(),
        deadLetterFollowers ? "1" : "0", ttl, orderingKey)
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((answer, error) -> {
          if (error == null) {
            return;
          }
          if (attempt < SETTLE_TRIES) {
            long delay = Math.min(60_000, 100L << Math.min(attempt - 1, 10));
            CompletableFuture.runAsync(() -> settle(keys, orderingKey, ticket, how, deadLetterFollowers,
                attempt + 1), CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
          } else {
            LOG.error("ordering: the settlement of {} seq {} of key {} did not reach Redis ({}); its key's "
                + "next events wait until its state expires", keys.tenant(), ticket.seq(), orderingKey,
                error.getClass().getSimpleName());
          }
        });
  }

  private CompletableFuture<List<Object>> call(OrderKeys keys, String orderingKey, String... args) {
    String[] keyNames = {keys.key(orderingKey), keys.inFlight()};
    return circuit.call(() -> script.run(commands, keyNames, args, () -> { })).toCompletableFuture();
  }
}
