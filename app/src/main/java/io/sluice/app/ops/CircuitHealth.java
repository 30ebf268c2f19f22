package io.sluice.app.ops;

import io.sluice.redis.RedisCircuit;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * A role's Redis circuit as a {@code /health} entry ({@code gateRedisCircuit},
 * {@code dispatcherRedisCircuit}). Closed is up. Open or half-open is down: the role is running,
 * but on each provider's onRedisDown policy (fail_open leaking from every instance, fail_closed
 * making no calls, local at an estimated share), which an operator must see. Reading the state
 * also times out a probe that was never reported, so a stuck circuit cannot hide behind UP.
 */
public final class CircuitHealth implements HealthCheck {
  private final String name;
  private final Supplier<RedisCircuit.Status> status;

  public CircuitHealth(String name, Supplier<RedisCircuit.Status> status) {
    this.name = name;
    this.status = status;
  }

  /** The entry of a role's circuit, named {@code <role>RedisCircuit}. */
  public static CircuitHealth of(String role, RedisCircuit circuit) {
    return new CircuitHealth(role + "RedisCircuit", circuit::status);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Result check() {
    RedisCircuit.Status s = status.get();
    String since = " since " + Instant.ofEpochMilli(s.sinceMillis());
    return switch (s.state()) {
      case CLOSED -> Result.reachable("CLOSED" + since);
      case OPEN -> Result.unreachable("OPEN" + since + " (" + s.lastFailure()
          + "); onRedisDown policies apply; next probe at " + Instant.ofEpochMilli(s.nextProbeAtMillis()));
      case HALF_OPEN -> Result.unreachable("HALF_OPEN" + since + " (probing after: "
          + s.lastFailure() + "); onRedisDown policies apply");
    };
  }
}
